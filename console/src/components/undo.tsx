// A toast that says what was just done and offers to undo it for a few seconds (it waits
// while the pointer is over it). Undo runs `undo` (calls of the API that put things back);
// the toast then says whether that worked.
import { Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { errorOf } from '../api/client';

/** How long the Undo stays offered, in milliseconds. */
export const UNDO_FOR_MS = 10_000;

let next = 0;

// The toasts' close button is named, for screen readers and axe.
const CLOSE = { closeButtonProps: { 'aria-label': 'Dismiss' } };

export function offerUndo({
  done,
  undo,
  undone,
}: {
  /** What was done: `Deleted the rule "Kettle banner".` */
  done: string;
  /** Puts it back; throws the API's error body when it cannot. */
  undo: () => Promise<void>;
  /** Said once undone: `The rule "Kettle banner" is back.` */
  undone: string;
}): void {
  next += 1;
  const id = `undo-${next}`;
  let started = false;
  const run = async () => {
    if (started) return;
    started = true;
    notifications.update({ id, message: 'Undoing…', loading: true, autoClose: false });
    try {
      await undo();
      notifications.update({ id, message: undone, loading: false, color: 'green', autoClose: 5000 });
    } catch (e) {
      notifications.update({
        id,
        message: `Could not undo: ${errorOf(e).message ?? 'the service refused'}`,
        loading: false,
        color: 'red',
        autoClose: false,
      });
    }
  };
  notifications.show({
    ...CLOSE,
    id,
    role: 'status',
    autoClose: UNDO_FOR_MS,
    message: (
      <span className="undo">
        <span>{done}</span>
        <Button size="compact-sm" variant="outline" onClick={run}>
          Undo
        </Button>
      </span>
    ),
  });
}

/** A toast that says what was done, without Undo (for a change that cannot be taken back). */
export function tell(done: string): void {
  notifications.show({ ...CLOSE, role: 'status', message: done, autoClose: 5000 });
}
