// From the scene model's 365 Places365 probabilities to RESO Media `ImageOf` values
// (docs/photos.md, "Tags: what each photo shows"), in two parts:
// - the learned head (scene-head.ts): a logistic regression trained on labelled photos gives the
//   values it was trained on (Bathroom, Bedroom, DiningRoom, Kitchen, LivingRoom,
//   FrontOfStructure) with a probability each; below its threshold it abstains (Other);
// - the hand mapping below, for the values no labelled photos exist for (Pool, Garage, Hall, …):
//   the probabilities of the scenes that show them are summed per value on the photo's side only
//   (Places365 flags each scene indoor or outdoor, and a photo whose indoor scenes hold most of the
//   probability can only be given an indoor value, and the other way round). Such a value is given
//   when it leads the hand mapping with at least the head's sceneOnlyThreshold.
// FloorPlan comes from floor-plan.ts (Places365 has no such scene), before the model is asked.
// Can give: Bathroom, Bedroom, Kitchen, LivingRoom, DiningRoom, Hall, Closet, Entry, Laundry,
//   Office, Gym, Basement, Garage, Pool, Balcony, Patio, Porch, Garden, View, FrontOfStructure,
//   FloorPlan.
import { DARK_BELOW, type DecodedPhoto } from './decode.ts';
import { floorPlanScore, isFloorPlan } from './floor-plan.ts';
import { headScores, SCENE_HEAD, type SceneHead, type SceneScores } from './scene-head.ts';
import { SCENE_MODEL_ID, type SceneModel } from './scene-model.ts';

export const ABSTAIN = 'Other';
/** What tagged a photo: the model file, this mapping and the head's weights (listing_images.tag_model). */
export const TAG_MODEL = `${SCENE_MODEL_ID}/rooms-3+head@${SCENE_HEAD.version}`;

/** Places365 indoor (1) / outdoor (0) flag per class index, from IO_places365.txt. */
const INDOOR_FLAGS =
  '01110010010101111101111101111101001101110001111000111011100011011100011010010000101001001110110110111110001000000011000011101010111101110101000000111000000110001010010011001000110100100100100000011010001100001011100101010010010010000001101111001010101001010000011010010100001000001110110000000001011010110000000100010110111011001101100111000001001000001000001000010';

export const SCENE_CLASSES = 365;
export const isIndoorScene = (index: number) => INDOOR_FLAGS[index] === '1';

/** Places365 class index → ImageOf (names as in categories_places365.txt). */
export const PLACES_TO_IMAGE_OF: Record<number, { name: string; tag: string }> = {
  45: { name: 'bathroom', tag: 'Bathroom' },
  303: { name: 'shower', tag: 'Bathroom' },
  195: { name: 'jacuzzi/indoor', tag: 'Bathroom' },
  52: { name: 'bedroom', tag: 'Bedroom' },
  51: { name: 'bedchamber', tag: 'Bedroom' },
  182: { name: 'hotel_room', tag: 'Bedroom' },
  124: { name: 'dorm_room', tag: 'Bedroom' },
  89: { name: 'childs_room', tag: 'Bedroom' },
  240: { name: 'nursery', tag: 'Bedroom' },
  3: { name: 'alcove', tag: 'Bedroom' },
  203: { name: 'kitchen', tag: 'Kitchen' },
  285: { name: 'restaurant_kitchen', tag: 'Kitchen' },
  155: { name: 'galley', tag: 'Kitchen' },
  253: { name: 'pantry', tag: 'Kitchen' },
  215: { name: 'living_room', tag: 'LivingRoom' },
  328: { name: 'television_room', tag: 'LivingRoom' },
  177: { name: 'home_theater', tag: 'LivingRoom' },
  281: { name: 'recreation_room', tag: 'LivingRoom' },
  269: { name: 'playroom', tag: 'LivingRoom' },
  63: { name: 'bow_window/indoor', tag: 'LivingRoom' },
  22: { name: 'artists_loft', tag: 'LivingRoom' },
  352: { name: 'waiting_room', tag: 'LivingRoom' },
  121: { name: 'dining_room', tag: 'DiningRoom' },
  120: { name: 'dining_hall', tag: 'DiningRoom' },
  38: { name: 'banquet_hall', tag: 'DiningRoom' },
  106: { name: 'corridor', tag: 'Hall' },
  317: { name: 'staircase', tag: 'Hall' },
  95: { name: 'closet', tag: 'Closet' },
  126: { name: 'dressing_room', tag: 'Closet' },
  318: { name: 'storage_room', tag: 'Closet' },
  134: { name: 'entrance_hall', tag: 'Entry' },
  208: { name: 'laundromat', tag: 'Laundry' },
  343: { name: 'utility_room', tag: 'Laundry' },
  176: { name: 'home_office', tag: 'Office' },
  244: { name: 'office', tag: 'Office' },
  168: { name: 'gymnasium/indoor', tag: 'Gym' },
  43: { name: 'basement', tag: 'Basement' },
  156: { name: 'garage/indoor', tag: 'Garage' },
  255: { name: 'parking_garage/indoor', tag: 'Garage' },
  325: { name: 'swimming_pool/indoor', tag: 'Pool' },
  326: { name: 'swimming_pool/outdoor', tag: 'Pool' },
  32: { name: 'balcony/exterior', tag: 'Balcony' },
  33: { name: 'balcony/interior', tag: 'Balcony' },
  259: { name: 'patio', tag: 'Patio' },
  272: { name: 'porch', tag: 'Porch' },
  362: { name: 'yard', tag: 'Garden' },
  209: { name: 'lawn', tag: 'Garden' },
  153: { name: 'formal_garden', tag: 'Garden' },
  345: { name: 'vegetable_garden', tag: 'Garden' },
  290: { name: 'roof_garden', tag: 'Garden' },
  97: { name: 'coast', tag: 'View' },
  48: { name: 'beach', tag: 'View' },
  243: { name: 'ocean', tag: 'View' },
  232: { name: 'mountain', tag: 'View' },
  344: { name: 'valley', tag: 'View' },
  307: { name: 'skyscraper', tag: 'View' },
  183: { name: 'house', tag: 'FrontOfStructure' },
  220: { name: 'mansion', tag: 'FrontOfStructure' },
  221: { name: 'manufactured_home', tag: 'FrontOfStructure' },
  107: { name: 'cottage', tag: 'FrontOfStructure' },
  87: { name: 'chalet', tag: 'FrontOfStructure' },
  49: { name: 'beach_house', tag: 'FrontOfStructure' },
  74: { name: 'cabin/outdoor', tag: 'FrontOfStructure' },
  67: { name: 'building_facade', tag: 'FrontOfStructure' },
  8: { name: 'apartment_building/outdoor', tag: 'FrontOfStructure' },
  283: { name: 'residential_neighborhood', tag: 'FrontOfStructure' },
  127: { name: 'driveway', tag: 'FrontOfStructure' },
  123: { name: 'doorway/outdoor', tag: 'FrontOfStructure' },
  231: { name: 'motel', tag: 'FrontOfStructure' },
  157: { name: 'garage/outdoor', tag: 'FrontOfStructure' },
  184: { name: 'hunting_lodge/outdoor', tag: 'FrontOfStructure' },
  193: { name: 'inn/outdoor', tag: 'FrontOfStructure' },
};

const MAPPED_SCENES = Object.keys(PLACES_TO_IMAGE_OF).map(Number);

export interface RoomTags {
  /** Every ImageOf value at or above the threshold, most likely first (confidence 0..1, 3 decimals). */
  tags: { tag: string; confidence: number }[];
  /** The first tag, or Other when the model abstains. */
  image_of: string;
}

/** The probability on every scene of the hand mapping, both sides: how much of a property the model sees. */
export function sceneMass(probabilities: ArrayLike<number>): number {
  let mass = 0;
  for (const index of MAPPED_SCENES) mass += probabilities[index] ?? 0;
  return mass;
}

/** Summed probability per ImageOf value on the photo's side (indoor or outdoor), most likely first. */
export function sceneScores(probabilities: ArrayLike<number>): [string, number][] {
  let indoor = 0;
  for (let i = 0; i < SCENE_CLASSES; i++) if (isIndoorScene(i)) indoor += probabilities[i] ?? 0;
  const sideIsIndoor = indoor >= 0.5;
  const sums = new Map<string, number>();
  for (const [index, { tag }] of Object.entries(PLACES_TO_IMAGE_OF)) {
    if (isIndoorScene(Number(index)) !== sideIsIndoor) continue;
    sums.set(tag, (sums.get(tag) ?? 0) + (probabilities[Number(index)] ?? 0));
  }
  return [...sums].sort((a, b) => b[1] - a[1]);
}

/**
 * The tags of a photo the model has classified: the head's values at or above `threshold`, or a
 * value only the hand mapping knows when it leads there with the head's sceneOnlyThreshold.
 */
export function sceneTags(scene: SceneScores, threshold: number, head: SceneHead = SCENE_HEAD): RoomTags {
  return tagsFrom(scene.probabilities, headScores(scene, head), threshold, head);
}

/** sceneTags with the head's probabilities given (`ranked`, most likely first). */
export function tagsFrom(
  probabilities: ArrayLike<number>,
  ranked: [string, number][],
  threshold: number,
  head: Pick<SceneHead, 'classes' | 'sceneOnlyThreshold' | 'minSceneMass'>,
): RoomTags {
  if (sceneMass(probabilities) < head.minSceneMass) return { tags: [], image_of: ABSTAIN };
  const rounded = (tag: string, p: number) => ({ tag, confidence: Math.round(Math.min(1, p) * 1000) / 1000 });
  const [mapped] = sceneScores(probabilities);
  if (mapped && !head.classes.includes(mapped[0]) && mapped[1] >= head.sceneOnlyThreshold)
    return { tags: [rounded(...mapped)], image_of: mapped[0] };
  const tags = ranked.filter(([, p]) => p >= threshold).map(([tag, p]) => rounded(tag, p));
  return { tags, image_of: tags[0]?.tag ?? ABSTAIN };
}

/**
 * The tags a decoded photo gets without the model: FloorPlan by its pixels (line art, not a
 * scene), Other when it is too dark to see (the head, trained on lit rooms, answers confidently on
 * such pictures); undefined: the model decides.
 */
export function tagsBeforeModel(photo: Pick<DecodedPhoto, 'colour' | 'brightness'>): RoomTags | undefined {
  if (isFloorPlan(photo))
    return { tags: [{ tag: 'FloorPlan', confidence: floorPlanScore(photo) }], image_of: 'FloorPlan' };
  if (photo.brightness < DARK_BELOW) return { tags: [], image_of: ABSTAIN };
  return undefined;
}

/** What the image process and retag store for a decoded photo (undefined: no model, not a plan). */
export async function tagPhoto(
  photo: Pick<DecodedPhoto, 'modelRgb' | 'colour' | 'brightness'>,
  model: SceneModel | undefined,
  threshold: number,
): Promise<RoomTags | undefined> {
  if (!model) return isFloorPlan(photo) ? tagsBeforeModel(photo) : undefined;
  return tagsBeforeModel(photo) ?? sceneTags(await model.classify(photo.modelRgb), threshold);
}
