/**
 * The ticket transitions (spec 1 §4) shared by the inbox items and the ticket view's header:
 * accept, return to queue, resolve (with or without farewell), ignore, reopen, transfer, delete.
 * Each goes through `PUT /tickets/{id}` (the server's state machine decides); `run` opens the
 * dialog an action needs, and `dialogs` renders them.
 */
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { WhenOpened } from '../../../components/WhenOpened';
import { useAuthenticatedSession } from '../../../lib/session';
import { toastError } from '../../../lib/toast';
import { useDeleteTicket, useUpdateTicket, type TicketUpdate } from '../api/tickets';
import { ConfirmDialog, ResolveDialog, TicketAlreadyOpenDialog, TransferDialog } from '../components/lazyDialogs';
import type { TransferChoice } from '../components/TransferDialog';
import type { Ticket } from '../types';

export type TicketAction = 'accept' | 'return' | 'resolve' | 'ignore' | 'reopen' | 'transfer' | 'delete' | 'integration';

interface Options {
  /** After the ticket leaves the user's hands (returned, resolved, ignored, deleted). */
  onLeave?: (ticket: Ticket) => void;
}

export function useTicketActions({ onLeave }: Options = {}): { run: (action: TicketAction, ticket: Ticket) => void; dialogs: ReactNode; busy: boolean } {
  const { t } = useTranslation();
  const session = useAuthenticatedSession();
  const me = session.user.id;
  const navigate = useNavigate();
  const update = useUpdateTicket();
  const remove = useDeleteTicket();
  const [resolving, setResolving] = useState<Ticket | null>(null);
  const [transferring, setTransferring] = useState<{ ticket: Ticket; accept: boolean } | null>(null);
  const [deleting, setDeleting] = useState<Ticket | null>(null);
  const [owned, setOwned] = useState<{ user?: string | null; queue?: string | null } | null>(null);

  const put = (ticket: Ticket, body: TicketUpdate, after?: (updated: Ticket) => void) => {
    update.mutate(
      { id: ticket.id, body },
      {
        onSuccess: (updated) => after?.(updated),
        onError: (error) => toastError(error),
      },
    );
  };

  /** Accept / reopen: the user becomes the owner; another owner in the answer is shown. */
  const takeOwnership = (ticket: Ticket, extra: TicketUpdate = {}) => {
    put(ticket, { status: ticket.isGroup ? 'group' : 'open', userId: me, ...extra }, (updated) => {
      if (updated.userId != null && updated.userId !== me) {
        setOwned({ user: updated.user?.name, queue: updated.queue?.name });
        return;
      }
      navigate(`/tickets/${updated.uuid}`);
    });
  };

  const run = (action: TicketAction, ticket: Ticket) => {
    switch (action) {
      case 'accept':
      case 'reopen':
        if (ticket.status !== 'closed' && ticket.userId != null && ticket.userId !== me) {
          setOwned({ user: ticket.user?.name, queue: ticket.queue?.name });
          return;
        }
        if (ticket.queueId == null) {
          setTransferring({ ticket, accept: true });
          return;
        }
        takeOwnership(ticket);
        return;
      case 'return':
        put(ticket, { status: 'pending', userId: null }, () => onLeave?.(ticket));
        return;
      case 'resolve':
        setResolving(ticket);
        return;
      case 'ignore':
        put(ticket, { status: 'closed', sendFarewellMessage: false }, () => onLeave?.(ticket));
        return;
      case 'transfer':
        setTransferring({ ticket, accept: false });
        return;
      case 'delete':
        setDeleting(ticket);
        return;
      case 'integration':
        put(ticket, { useIntegration: !ticket.useIntegration });
        return;
    }
  };

  const onResolve = (sendFarewellMessage: boolean) => {
    const ticket = resolving;
    if (!ticket) return;
    setResolving(null);
    put(ticket, { status: 'closed', userId: me, sendFarewellMessage }, () => onLeave?.(ticket));
  };

  const onTransfer = (choice: TransferChoice) => {
    const current = transferring;
    if (!current) return;
    setTransferring(null);
    if (current.accept) {
      takeOwnership(current.ticket, { queueId: choice.queueId });
      return;
    }
    const status = choice.userId === null ? 'pending' : current.ticket.isGroup ? 'group' : 'open';
    put(
      current.ticket,
      { status, userId: choice.userId, queueId: choice.queueId, isTransfered: true, ...(choice.message ? { msgTransfer: choice.message } : {}) },
      () => {
        if (choice.userId !== me) onLeave?.(current.ticket);
      },
    );
  };

  const onDelete = () => {
    const ticket = deleting;
    if (!ticket) return;
    setDeleting(null);
    remove.mutate(ticket.id, { onSuccess: () => onLeave?.(ticket), onError: (error) => toastError(error) });
  };

  const dialogs = (
    <>
      <WhenOpened open={resolving !== null}>
        <ResolveDialog open={resolving !== null} busy={update.isPending} onClose={() => setResolving(null)} onResolve={onResolve} />
      </WhenOpened>
      <WhenOpened open={transferring !== null}>
        <TransferDialog ticket={transferring?.ticket ?? null} busy={update.isPending} onClose={() => setTransferring(null)} onTransfer={onTransfer} />
      </WhenOpened>
      <WhenOpened open={deleting !== null}>
        <ConfirmDialog
          open={deleting !== null}
          title={t('tickets.delete.title', { id: deleting?.id ?? '' })}
          onClose={() => setDeleting(null)}
          onConfirm={onDelete}
          busy={remove.isPending}
          testId="ticket-delete-confirm"
        >
          {t('tickets.delete.message')}
        </ConfirmDialog>
      </WhenOpened>
      <WhenOpened open={owned !== null}>
        <TicketAlreadyOpenDialog open={owned !== null} userName={owned?.user} queueName={owned?.queue} onClose={() => setOwned(null)} />
      </WhenOpened>
    </>
  );

  return { run, dialogs, busy: update.isPending || remove.isPending };
}
