/**
 * Live flow and phrase-campaign changes: `company-{id}-flowbuilder` refreshes the flow lists,
 * `company-{id}-flowcampaign` the phrase campaigns (`{action, flow | flowId}`).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCompanyEvent } from '../../../lib/socket';
import { flowsKeys } from '../api/flows';
import { flowCampaignsKeys } from '../api/phrase-lists';

export function useFlowsRealtime(): void {
  const queryClient = useQueryClient();
  useCompanyEvent('flowbuilder', () => {
    void queryClient.invalidateQueries({ queryKey: flowsKeys.lists() });
  });
}

export function useFlowCampaignsRealtime(): void {
  const queryClient = useQueryClient();
  useCompanyEvent('flowcampaign', () => {
    void queryClient.invalidateQueries({ queryKey: flowCampaignsKeys.all });
  });
}
