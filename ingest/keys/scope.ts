// Which keys an admin key may see and change, and what it may hand out (service.ts has the rules
// in words: its own account; a live admin key manages live and test keys, a test one test keys
// only; never more than the acting key's own powers; a rolled key changes no key).
import type { KeyMode } from '../../common/auth/api-key-format.ts';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { grantableRoles, type Role } from '../../common/auth/roles.ts';
import { tiers, type Tier } from '../../common/auth/tiers.ts';
import { AppError } from '../../common/errors.ts';

/** 403 key_rolled for a key that was rolled (it works until expires_at, but changes no key). */
export function refuseRolled(admin: ApiKeyRecord): void {
  if (!admin.expires_at) return;
  throw new AppError(
    'key_rolled',
    `This key was rolled and stops working at ${admin.expires_at}; only its replacement ` +
      `(${admin.replaced_by ?? 'the new key'}) may create, roll or revoke keys`,
    { details: { expires_at: admin.expires_at, replaced_by: admin.replaced_by }, retriable: false },
  );
}

export function inScope(admin: ApiKeyRecord, key: ApiKeyRecord): boolean {
  return key.account_id === admin.account_id && managersOf(key.mode).includes(admin.mode);
}

/** Modes of the keys `admin` manages: live and test for a live admin key, test for a test one. */
export function managedModes(admin: ApiKeyRecord): KeyMode[] {
  return admin.mode === 'live' ? ['live', 'test'] : ['test'];
}

/** Modes of the admin keys that can manage keys of `mode`. */
export function managersOf(mode: KeyMode): KeyMode[] {
  return mode === 'live' ? ['live'] : ['live', 'test'];
}

/** `tier` and the tiers below it (tiers.ts lists them ascending). */
export function tiersUpTo(tier: Tier): Tier[] {
  return tiers.slice(0, tiers.indexOf(tier) + 1);
}

/** 403 scope_exceeded unless `admin` may hand out a key with these powers. */
export function checkScope(admin: ApiKeyRecord, wanted: { mode: KeyMode; tier: Tier; role: Role }): void {
  const refuse = (field: string, requested: string, allowed: readonly string[]) =>
    new AppError(
      'scope_exceeded',
      `A ${admin.mode} ${admin.tier} admin key cannot give ${field} ${requested}`,
      {
        details: { field, requested, allowed },
        retriable: false,
      },
    );
  const modes = managedModes(admin);
  if (!modes.includes(wanted.mode)) throw refuse('mode', wanted.mode, modes);
  const tiersAllowed = tiersUpTo(admin.tier);
  if (!tiersAllowed.includes(wanted.tier)) throw refuse('tier', wanted.tier, tiersAllowed);
  const rolesAllowed = grantableRoles[admin.role];
  if (!rolesAllowed.includes(wanted.role)) throw refuse('role', wanted.role, rolesAllowed);
}
