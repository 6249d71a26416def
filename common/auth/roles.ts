// Key roles: what a key may do besides its tier's permissions (docs/auth.md, "Roles"). A key has
// exactly one role; records written before roles existed read as `standard`.
//
// | role     | may also                                                        | who can give it              |
// |----------|-----------------------------------------------------------------|------------------------------|
// | standard | nothing beyond its tier                                         | CLI, admin keys              |
// | portal   | post view events for any account's listing (marketplace front)  | the operator's CLI only      |
// | admin    | manage its own account's keys over the API (/keys*)             | CLI, admin keys              |
//
// Portal is a marketplace-wide power (its views feed every account's demand figures), so no
// account can give it to itself: admin keys may create `standard` and `admin` keys only.
export const roles = ['standard', 'portal', 'admin'] as const;
export type Role = (typeof roles)[number];

/** Roles a key of role `creator` may give the keys it creates over the API (never above its own). */
export const grantableRoles: Record<Role, readonly Role[]> = {
  standard: [],
  portal: [],
  admin: ['standard', 'admin'],
};

export function roleOf(stored: string | undefined): Role {
  return (roles as readonly string[]).includes(stored ?? '') ? (stored as Role) : 'standard';
}
