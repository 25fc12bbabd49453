/** The video-meeting link of a ticket (spec 1 "Ticket view": meeting link using the ticket id). */

/** Where meetings are held: one room per ticket under this address. */
export const MEETING_BASE_URL = 'https://meet.jit.si';

/** `https://meet.jit.si/chatflow-<companyId>-<first 8 characters of the ticket's uuid>`. */
export function meetingLink(companyId: number, ticketUuid: string): string {
  const room = ticketUuid.replace(/[^A-Za-z0-9]/g, '').slice(0, 8).toLowerCase();
  return `${MEETING_BASE_URL}/chatflow-${companyId}-${room}`;
}
