/** Live quick-message changes on `company-{id}-quickmessage`: any event refreshes the lists. */
import { useCompanyEventRefresh } from '../../../lib/hooks/useCompanyEventRefresh';
import { quickMessagesKeys } from '../api/quick-messages';

const quickMessageEvent = (companyId: number) => `company-${companyId}-quickmessage`;

export function useQuickMessagesRealtime(): void {
  useCompanyEventRefresh(quickMessageEvent, quickMessagesKeys.all);
}
