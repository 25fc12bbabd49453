/**
 * Live tag changes on `company{id}-tag` (spec 2 §7 "Realtime"; note: no dash after "company").
 * Any event refreshes the tag lists.
 */
import { useCompanyEventRefresh } from '../../../../lib/hooks/useCompanyEventRefresh';
import { tagsKeys } from '../api/tags';

const tagEvent = (companyId: number) => `company${companyId}-tag`;

export function useTagsRealtime(): void {
  useCompanyEventRefresh(tagEvent, tagsKeys.all);
}
