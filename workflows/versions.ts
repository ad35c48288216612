// Which of the workflows' changes a run has. Core records each patch a run asks first as a marker
// and an upsert of TemporalChangeVersion: two events, and a visibility write on the server, in the
// workflow task that asks it; a step of the seed plan asked three. A run begun on this code asks
// one, CURRENT_PATCH, which stands for every patch before it. A history without its marker (a run
// begun before it) asks each patch where it always did, so it replays unchanged.
import { patched } from '@temporalio/workflow';

export const CURRENT_PATCH = 'patches-until-2026-12-06';

/**
 * The patches CURRENT_PATCH stands for: every one made before it. A later patch is asked with
 * `patched()` on its own: a run that recorded CURRENT_PATCH on older code took the old branch.
 */
export type CoveredPatch =
  | 'local-first-attempts'
  | 'reports-land-before-end'
  | 'end-after-alerts'
  | 'no-completion-report'
  | 'local-step-reports'
  | 'cancel-follows-first-send'
  | 'input-poll-grows'
  | 'auth-rounds-by-time'
  | 'status-words-without-time'
  | 'confirm-pushed-end'
  | 'report-refused-answers'
  | 'keep-watch-after-approval'
  | 'working-deadline'
  | 'a2a-upstream-push'
  | 'a2a-turns'
  | 'a2a-push-client-config-ids'
  | 'ordered-step-reports'
  | 'owner-to-steps';

/**
 * Whether this run has the change `patchId` guards: all of them in a run with CURRENT_PATCH, else
 * that patch's own answer. A run that began before CURRENT_PATCH and goes on live on this code asks
 * CURRENT_PATCH at its next check, as it would have asked `patchId`, and so records that marker.
 */
export function hasPatch(patchId: CoveredPatch): boolean {
  return patched(CURRENT_PATCH) || patched(patchId);
}

/**
 * Whether this run has every covered change without asking any patch of its own: for a check made
 * in an earlier workflow task than the one its patch was asked in. Replaying a run from before
 * CURRENT_PATCH, Core knows a patch's marker ahead of the task that recorded it, so asking the
 * patch earlier would record it there, and the replay fails on the task that did.
 */
export function hasEveryCoveredPatch(): boolean {
  return patched(CURRENT_PATCH);
}
