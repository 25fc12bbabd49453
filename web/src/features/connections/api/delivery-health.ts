/**
 * Delivery health (docs/api.md "Connections", docs/channels.md "Delivery assurance"):
 * `GET /whatsapp/{id}/health` → the connection's outbound messages of the last 24 hours still at
 * one tick 10 minutes after WhatsApp took them (the count, the newest 20). Users who manage
 * connections; 404 `ERR_NO_WAPP_FOUND`. A listed message opens its ticket, found by id
 * (`GET /tickets/{id}`) for the uuid the ticket page's address carries.
 */
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';

/** One undelivered message (core/src/inbox/delivery.rs `UndeliveredMessage`). */
export const undeliveredMessageSchema = z.object({
  id: z.number(),
  ticketId: z.number(),
  contactName: z.catch(z.string(), ''),
  body: z.catch(z.string(), ''),
  createdAt: z.string(),
});
export type UndeliveredMessage = z.infer<typeof undeliveredMessageSchema>;

/** The connection's health (core/src/inbox/delivery.rs `DeliveryHealth`). */
export const deliveryHealthSchema = z.object({
  undelivered: z.number(),
  messages: z.array(undeliveredMessageSchema),
});
export type DeliveryHealth = z.infer<typeof deliveryHealthSchema>;

export const deliveryHealthKeys = {
  all: ['delivery-health'] as const,
  connection: (id: number) => [...deliveryHealthKeys.all, id] as const,
};

export function getDeliveryHealth(id: number, signal?: AbortSignal): Promise<DeliveryHealth> {
  return api.get(`/whatsapp/${id}/health`, { schema: deliveryHealthSchema, signal });
}

/** The connection's delivery health, fetched each time it is shown. */
export function useDeliveryHealth(id: number) {
  return useQuery({ queryKey: deliveryHealthKeys.connection(id), queryFn: ({ signal }) => getDeliveryHealth(id, signal), staleTime: 0, retry: false });
}

const ticketUuidSchema = z.looseObject({ uuid: z.string() });

/** The uuid of a ticket known by id: the ticket page's address (`/tickets/{uuid}`). */
export async function getTicketUuid(ticketId: number): Promise<string> {
  const ticket = await api.get(`/tickets/${ticketId}`, { schema: ticketUuidSchema });
  return ticket.uuid;
}
