/* The native-protocol front (native-front.c): listens on 127.0.0.1:public_port, checks each
 * client's Hello by an HTTP login on http_port, and relays accepted connections to the server's
 * own native listener on native_port. Returns 0 once listening, -1 on error (errno set). */
int start_native_front(int public_port, int native_port, int http_port);
