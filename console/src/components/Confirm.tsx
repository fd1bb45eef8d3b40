// Asking before a change that cannot simply be taken back: an in-page dialog (not the
// browser's confirm()) that names the thing and says what happens. `useConfirm()` answers a
// function that opens it and resolves to whether the person confirmed; Cancel has the focus.
import { Button, Group, Modal } from '@mantine/core';
import { createContext, type ReactNode, useCallback, useContext, useRef, useState } from 'react';

export interface ConfirmRequest {
  /** The question, naming the thing: `Delete the rule "Kettle banner"?` */
  title: string;
  /** What happens, in a sentence or two. */
  message: ReactNode;
  /** The confirming button's words ("Delete", "Unpublish"). */
  confirm: string;
}

type Ask = (request: ConfirmRequest) => Promise<boolean>;

const ConfirmContext = createContext<Ask | undefined>(undefined);

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [opened, setOpened] = useState(false);
  // Kept while the dialog closes, so its words do not vanish during the transition.
  const [request, setRequest] = useState<ConfirmRequest>();
  const resolver = useRef<(confirmed: boolean) => void>(undefined);
  const ask = useCallback<Ask>((next) => {
    resolver.current?.(false);
    setRequest(next);
    setOpened(true);
    return new Promise<boolean>((resolve) => {
      resolver.current = resolve;
    });
  }, []);
  const answer = (confirmed: boolean) => {
    resolver.current?.(confirmed);
    resolver.current = undefined;
    setOpened(false);
  };
  return (
    <ConfirmContext.Provider value={ask}>
      {children}
      <Modal
        opened={opened}
        onClose={() => answer(false)}
        title={request?.title}
        centered
        closeButtonProps={{ 'aria-label': 'Close' }}
        classNames={{ title: 'confirm-title' }}
      >
        <div className="confirm-message">{request?.message}</div>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => answer(false)} data-autofocus>
            Cancel
          </Button>
          <Button color="red.8" onClick={() => answer(true)}>
            {request?.confirm}
          </Button>
        </Group>
      </Modal>
    </ConfirmContext.Provider>
  );
}

/** The function that asks; it must be used under ConfirmProvider. */
export function useConfirm(): Ask {
  const ask = useContext(ConfirmContext);
  if (!ask) throw new Error('useConfirm needs a ConfirmProvider');
  return ask;
}
