// bench:ingest's second reference: Express + zod and nothing else (no auth, Redis, Kafka). Parses the
// body with express.json and validates every listing with the service's own listing schema, so the
// bench shows what the framework floor costs next to what the service adds on top of it.
// Usage (spawned by bench/ingest.ts): tsx bench/express-zod-reference.ts <port>
import express from 'express';
import { listingSchema } from '../common/domain/listing.ts';

const app = express();
app.use(express.json({ limit: '2mb' }));
app.post('/', (req, res) => {
  const listings = (req.body as { listings?: unknown[] }).listings ?? [];
  const accepted = listings.filter((listing) => listingSchema.safeParse(listing).success).length;
  res.status(201).json({ accepted });
});
app.listen(Number(process.argv[2]), '127.0.0.1', () => process.send?.('ready'));
