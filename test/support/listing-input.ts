// The smallest listing the validator accepts, and the fixed clock it is validated at, for unit
// tests of the listing rules: each test spreads its own fields over it.
export const validationNow = Date.parse('2025-06-01T12:00:00Z');

export const minimalListing = {
  title: 'Two-bedroom flat',
  description: 'Near the beach',
  property_type: 'apartment',
  price: 850_000,
  latitude: -6.77,
  longitude: 39.27,
};
