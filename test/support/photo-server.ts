// A local server of listing photos for the image tests: the bytes of `files` by path (GET and HEAD),
// 404 for any other path, reached under a *.localhost host name (loopback for the outbound policy).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PhotoServer {
  /** `http://<host>:<port>`: a photo's URL is the base and its path in `files`. */
  base: string;
  close(): Promise<void>;
}

/** Serves `files` (read at each request); `contentType` is what a path's answer claims to be. */
export async function servePhotos(
  files: Map<string, Buffer>,
  host: string,
  contentType: (path: string) => string = () => 'image/jpeg',
): Promise<PhotoServer> {
  const server = http.createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': contentType(req.url!), 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://${host}:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
