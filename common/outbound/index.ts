// SSRF-safe outbound calls (CONTRACT "Outbound requests"); see docs/webhooks.md, "SSRF policy".
export * from './client.ts';
export * from './errors.ts';
export * from './ip-policy.ts';
export * from './service-ports.ts';
export * from './target.ts';
