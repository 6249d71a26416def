// One status change applied to a listing's state: the market-spell bookkeeping behind velocity and
// the stock counts (docs/lifecycle.md, "Spells"). Pure, so unit tests walk whole timelines.
//   on → on   (active ↔ under_contract)  transition none: still on the market
//   on → off  (rented/withdrawn/expired) exit: the spell ends at `at`; days on market = whole days
//                                         from the spell's start
//   off → off                             relabel: the same exit, another reason (days unchanged)
//   off → on, ≤ 30 days after the exit    return: the spell continues from its old start and the exit
//                                         is undone (RESO CumulativeDaysOnMarket)
//   off → on, later                       relist: a new spell starts at `at`
import {
  isOnMarket,
  RETURN_WINDOW_MS,
  wholeDays,
  type ListingStatus,
  type StatusSource,
} from '../../common/domain/lifecycle.ts';
import type { Currency } from '../../common/domain/listing.ts';
import type { ListingState } from '../../common/lifecycle/states.ts';

export type Transition = 'none' | 'exit' | 'relabel' | 'return' | 'relist';

export interface StatusChange {
  status: ListingStatus;
  /** Epoch ms, whole seconds (what ClickHouse stores). */
  at: number;
  recordedAt: number;
  source: StatusSource;
  snapshotId?: string;
  rentAgreed?: number;
  currency?: Currency;
  rentAgreedTzs?: number;
}

/** What the change row records about the spell (columns of listing_status_changes). */
export interface ChangeEffect {
  transition: Transition;
  previous_status: ListingStatus;
  spell_started_at: number;
  exited_at: number;
  exit_days: number;
}

export type Applied =
  | { kind: 'same' } // already in that status: nothing to record (a repeated update is a no-op)
  | { kind: 'out_of_order' } // `at` is before the listing's last change: refused
  | { kind: 'changed'; effect: ChangeEffect; state: ListingState };

export function applyChange(state: ListingState, change: StatusChange): Applied {
  if (change.at < state.status_at) return { kind: 'out_of_order' };
  if (change.status === state.status) return { kind: 'same' };
  const wasOn = isOnMarket(state.status);
  const nowOn = isOnMarket(change.status);
  let effect: Omit<ChangeEffect, 'previous_status'>;
  if (wasOn && nowOn) {
    effect = spell('none', state.spell_started_at, 0, 0);
  } else if (wasOn) {
    effect = spell('exit', state.spell_started_at, change.at, wholeDays(state.spell_started_at, change.at));
  } else if (!nowOn) {
    effect = spell('relabel', state.spell_started_at, state.exited_at, state.exit_days);
  } else if (change.at - state.exited_at <= RETURN_WINDOW_MS) {
    effect = spell('return', state.spell_started_at, state.exited_at, state.exit_days);
  } else {
    effect = spell('relist', change.at, 0, 0);
  }
  const full: ChangeEffect = { ...effect, previous_status: state.status };
  return {
    kind: 'changed',
    effect: full,
    state: {
      ...state,
      status: change.status,
      status_at: change.at,
      spell_started_at: full.spell_started_at,
      exited_at: nowOn ? 0 : full.exited_at,
      exit_days: nowOn ? 0 : full.exit_days,
      updated_at: Math.max(state.updated_at, change.recordedAt),
      version: state.version + 1,
    },
  };
}

function spell(transition: Transition, started: number, exited: number, days: number) {
  return { transition, spell_started_at: started, exited_at: exited, exit_days: days };
}
