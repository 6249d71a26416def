// Test files that build their own kafkajs clients (the compatibility and cluster tests) get the same
// request-queue fix as the services (common/clients/kafka.ts imports it there): without it kafkajs
// 2.2.4 arms its queue check with a negative delay, which Node 24 reports as a
// TimeoutNegativeWarning in the test output.
import '../../common/clients/kafkajs-request-queue.ts';
