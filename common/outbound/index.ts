// SSRF-safe outbound calls (CONTRACT "Outbound requests"); see docs/webhooks.md, "SSRF policy".
export * from './client.ts';
export * from './ip-policy.ts';
export * from './target.ts';
