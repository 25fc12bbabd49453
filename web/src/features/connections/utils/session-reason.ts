/**
 * A connection's session reason in words (spec 2 "Connection status display", shown under the
 * status): why it is logged out, banned, replaced, reconnecting...
 */
import type { TFunction } from 'i18next';
import { formatTableDate, type Connection } from '../types';

/** The translated reason of `connection`, or null when it has none. */
export function sessionReasonText(connection: Pick<Connection, 'sessionReason' | 'sessionUntil'>, t: TFunction): string | null {
  const reason = connection.sessionReason;
  if (!reason) return null;
  switch (reason.kind) {
    case 'temporaryBan': {
      const date = formatTableDate(connection.sessionUntil);
      return date ? t('connections.reasons.temporaryBan', { date }) : t('connections.reasons.temporaryBanNoDate');
    }
    case 'pairCodeError':
      return reason.throttled ? t('connections.reasons.pairCodeThrottled') : t('connections.reasons.pairCodeError');
    case 'failed':
      return reason.message ? t('connections.reasons.failed', { message: reason.message }) : t('connections.reasons.failedNoMessage');
    default:
      return t(`connections.reasons.${reason.kind}`);
  }
}
