// GET /analytics/heatmap?format=geojson: the same cells as the JSON answer, as a
// GeoJSON FeatureCollection of closed hexagon rings with the cell's properties.
import { describe, expect, it } from 'vitest';
import { api, createTestKey, eventually, sampleListing } from '../support/api.ts';

const bounds = '39.20,-6.85,39.35,-6.70';

describe('heatmap as GeoJSON', () => {
  it('happy: one hexagon Feature per cell, with the cell as its properties', async () => {
    const { key } = await createTestKey({ mode: 'test' });
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing({ latitude: -6.7601, longitude: 39.2702 })] },
    });
    expect(created.status).toBe(201);
    const [json, geo] = await eventually(async () => {
      const plain = await api('GET', `/api/v1/analytics/heatmap?bounds=${bounds}`, { key });
      const cell = plain.body.cells?.length ? plain : undefined;
      if (!cell) return undefined;
      const collection = await api('GET', `/api/v1/analytics/heatmap?bounds=${bounds}&format=geojson`, {
        key,
      });
      return [plain, collection] as const;
    }, 30_000);
    expect(geo.status).toBe(200);
    expect(geo.headers.get('content-type')).toMatch(/^application\/geo\+json/);
    expect(geo.body.type).toBe('FeatureCollection');
    expect(geo.body.features.map((f: any) => f.properties)).toEqual(json.body.cells);
    for (const feature of geo.body.features) {
      expect(feature).toMatchObject({
        type: 'Feature',
        id: feature.properties.h3_index,
        geometry: { type: 'Polygon' },
      });
      const ring = feature.geometry.coordinates[0] as [number, number][];
      expect(ring).toHaveLength(7); // six vertices, closed
      expect(ring[0]).toEqual(ring[6]);
      // [lng, lat] around the cell's centre
      for (const [lng, lat] of ring) {
        expect(Math.abs(lng - feature.properties.lng)).toBeLessThan(0.01);
        expect(Math.abs(lat - feature.properties.lat)).toBeLessThan(0.01);
      }
    }
  });

  it('error: an unknown format is a 400 naming the allowed ones', async () => {
    const { key } = await createTestKey({ mode: 'test' });
    const response = await api('GET', `/api/v1/analytics/heatmap?bounds=${bounds}&format=kml`, { key });
    expect(response.status).toBe(400);
    expect(response.body.error.details[0]).toMatchObject({
      parameter: 'format',
      allowed: ['json', 'geojson'],
    });
  });
});
