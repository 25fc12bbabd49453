/** Ticket notes (docs/api.md "Tickets"): list, add, delete. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { ticketNoteSchema } from '../types';

const notesKey = (ticketId: number, contactId: number) => ['tickets', 'notes', ticketId, contactId] as const;

export function useTicketNotes(ticketId: number, contactId: number, enabled = true) {
  return useQuery({
    queryKey: notesKey(ticketId, contactId),
    queryFn: ({ signal }) => api.get('/ticket-notes/list', { params: { ticketId, contactId }, schema: z.array(ticketNoteSchema), signal }),
    enabled,
  });
}

export function useAddTicketNote(ticketId: number, contactId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (note: string) => api.post('/ticket-notes', { note, ticketId, contactId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notesKey(ticketId, contactId) }),
  });
}

export function useDeleteTicketNote(ticketId: number, contactId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/ticket-notes/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notesKey(ticketId, contactId) }),
  });
}
