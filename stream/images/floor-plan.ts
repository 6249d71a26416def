// FloorPlan by the pixels (the scene model has no such scene): a floor plan is line art, mostly
// white paper with thin dark lines and little colour, which photos of rooms (even white bathrooms
// and kitchens, with their shading and tinted light) are not. Thresholds measured by
// `npm run eval:photos` on drawn plans and on the evaluation's room photos (docs/webhooks.md).
import type { DecodedPhoto } from './decode.ts';

// Drawn plans measured 90–94 % white, 4–8 % dark, chroma ≤ 0.022; the whitest room photos of the
// evaluation 61–75 % white.
export const FLOOR_PLAN = { minWhite: 0.85, minDark: 0.01, maxDark: 0.3, maxChroma: 0.05 } as const;

export function isFloorPlan(photo: Pick<DecodedPhoto, 'colour'>): boolean {
  const { white, dark, chroma } = photo.colour;
  return (
    white >= FLOOR_PLAN.minWhite &&
    dark >= FLOOR_PLAN.minDark &&
    dark <= FLOOR_PLAN.maxDark &&
    chroma <= FLOOR_PLAN.maxChroma
  );
}

/** A confidence for the rule's verdict: how white the page is (0..1). */
export function floorPlanScore(photo: Pick<DecodedPhoto, 'colour'>): number {
  return Math.round(photo.colour.white * 1000) / 1000;
}
