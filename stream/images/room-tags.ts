// From the photo model's 1,000 ImageNet class probabilities to RESO Media `ImageOf` values: the
// probabilities of the classes that show a room or a part of a property are summed per ImageOf
// value. A value whose sum reaches the threshold is a tag; none does → the model abstains (Other).
// What the model can say is limited by ImageNet's classes: it sees objects (a bathtub, a stove, a
// couch), not rooms, so a room is recognised by the furniture and fixtures in it.
// Can give: Bathroom, Bedroom, Kitchen, LivingRoom, DiningRoom, Balcony, Laundry, Office,
//   FrontOfStructure, Garden, View, Parking.
// Cannot give: Pool (ImageNet has no swimming-pool class, only swimwear), Hallway, Entry, Closet,
//   FloorPlan, Gym, Basement, Garage (a car is tagged Parking) and every other ImageOf value:
//   such photos are Other unless they happen to show the objects above.
export const TAG_MODEL = 'efficientnet-lite0-imagenet@33630d2a/rooms-1';
export const ABSTAIN = 'Other';

/** ImageNet class index → ImageOf (class names as in the ImageNet-1k label list). */
export const IMAGENET_TO_IMAGE_OF: Record<number, { name: string; tag: string }> = {
  434: { name: 'bath towel', tag: 'Bathroom' },
  435: { name: 'bathtub', tag: 'Bathroom' },
  648: { name: 'medicine chest', tag: 'Bathroom' },
  794: { name: 'shower curtain', tag: 'Bathroom' },
  804: { name: 'soap dispenser', tag: 'Bathroom' },
  861: { name: 'toilet seat', tag: 'Bathroom' },
  876: { name: 'tub', tag: 'Bathroom' },
  896: { name: 'washbasin', tag: 'Bathroom' },
  999: { name: 'toilet tissue', tag: 'Bathroom' },
  516: { name: 'cradle', tag: 'Bedroom' },
  520: { name: 'crib', tag: 'Bedroom' },
  564: { name: 'four-poster', tag: 'Bedroom' },
  721: { name: 'pillow', tag: 'Bedroom' },
  750: { name: 'quilt', tag: 'Bedroom' },
  894: { name: 'wardrobe', tag: 'Bedroom' },
  505: { name: 'coffeepot', tag: 'Kitchen' },
  521: { name: 'Crock Pot', tag: 'Kitchen' },
  534: { name: 'dishwasher', tag: 'Kitchen' },
  544: { name: 'Dutch oven', tag: 'Kitchen' },
  550: { name: 'espresso maker', tag: 'Kitchen' },
  651: { name: 'microwave', tag: 'Kitchen' },
  729: { name: 'plate rack', tag: 'Kitchen' },
  760: { name: 'refrigerator', tag: 'Kitchen' },
  766: { name: 'rotisserie', tag: 'Kitchen' },
  827: { name: 'stove', tag: 'Kitchen' },
  859: { name: 'toaster', tag: 'Kitchen' },
  909: { name: 'wok', tag: 'Kitchen' },
  453: { name: 'bookcase', tag: 'LivingRoom' },
  548: { name: 'entertainment center', tag: 'LivingRoom' },
  556: { name: 'fire screen', tag: 'LivingRoom' },
  598: { name: 'home theater', tag: 'LivingRoom' },
  765: { name: 'rocking chair', tag: 'LivingRoom' },
  831: { name: 'studio couch', tag: 'LivingRoom' },
  846: { name: 'table lamp', tag: 'LivingRoom' },
  851: { name: 'television', tag: 'LivingRoom' },
  495: { name: 'china cabinet', tag: 'DiningRoom' },
  532: { name: 'dining table', tag: 'DiningRoom' },
  706: { name: 'patio', tag: 'Balcony' },
  897: { name: 'washer', tag: 'Laundry' },
  526: { name: 'desk', tag: 'Office' },
  527: { name: 'desktop computer', tag: 'Office' },
  553: { name: 'file cabinet', tag: 'Office' },
  449: { name: 'boathouse', tag: 'FrontOfStructure' },
  660: { name: 'mobile home', tag: 'FrontOfStructure' },
  716: { name: 'picket fence', tag: 'FrontOfStructure' },
  853: { name: 'thatch', tag: 'FrontOfStructure' },
  858: { name: 'tile roof', tag: 'FrontOfStructure' },
  562: { name: 'fountain', tag: 'Garden' },
  580: { name: 'greenhouse', tag: 'Garden' },
  621: { name: 'lawn mower', tag: 'Garden' },
  703: { name: 'park bench', tag: 'Garden' },
  970: { name: 'alp', tag: 'View' },
  972: { name: 'cliff', tag: 'View' },
  975: { name: 'lakeside', tag: 'View' },
  976: { name: 'promontory', tag: 'View' },
  977: { name: 'sandbar', tag: 'View' },
  978: { name: 'seashore', tag: 'View' },
  979: { name: 'valley', tag: 'View' },
  436: { name: 'beach wagon', tag: 'Parking' },
  468: { name: 'cab', tag: 'Parking' },
  511: { name: 'convertible', tag: 'Parking' },
  609: { name: 'jeep', tag: 'Parking' },
  656: { name: 'minivan', tag: 'Parking' },
  704: { name: 'parking meter', tag: 'Parking' },
  717: { name: 'pickup', tag: 'Parking' },
  751: { name: 'racer', tag: 'Parking' },
  817: { name: 'sports car', tag: 'Parking' },
};

export interface RoomTags {
  /** Every ImageOf value at or above the threshold, most likely first (confidence 0..1, 3 decimals). */
  tags: { tag: string; confidence: number }[];
  /** The first tag, or Other when the model abstains. */
  image_of: string;
}

export function roomTags(probabilities: ArrayLike<number>, threshold: number): RoomTags {
  const sums = new Map<string, number>();
  for (const [index, { tag }] of Object.entries(IMAGENET_TO_IMAGE_OF))
    sums.set(tag, (sums.get(tag) ?? 0) + (probabilities[Number(index)] ?? 0));
  const tags = [...sums]
    .filter(([, p]) => p >= threshold)
    .sort((a, b) => b[1] - a[1])
    .map(([tag, p]) => ({ tag, confidence: Math.round(Math.min(1, p) * 1000) / 1000 }));
  return { tags, image_of: tags[0]?.tag ?? ABSTAIN };
}
