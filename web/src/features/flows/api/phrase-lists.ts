/**
 * Phrase campaigns (spec 3 §2.14, §7 "Flow campaigns"): `GET /flowcampaign`, `POST`, `PUT`,
 * `DELETE /flowcampaign/{id}`, plus the connections (`GET /whatsapp`) and flows
 * (`GET /flowbuilder?searchParam=`) the dialog chooses from.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { connectionOptionSchema, flowCampaignSchema, flowSummarySchema } from '../types';

export const flowCampaignsKeys = {
  all: ['flowCampaigns'] as const,
  list: () => [...flowCampaignsKeys.all, 'list'] as const,
  connections: () => [...flowCampaignsKeys.all, 'connections'] as const,
  flowOptions: (search: string) => [...flowCampaignsKeys.all, 'flows', search] as const,
};

const listSchema = z.pipe(z.object({ flow: z.array(flowCampaignSchema) }), z.transform((r) => r.flow));

export function useFlowCampaigns() {
  return useQuery({
    queryKey: flowCampaignsKeys.list(),
    queryFn: ({ signal }) => api.get('/flowcampaign', { schema: listSchema, signal }),
  });
}

export function useConnectionOptions(enabled = true) {
  return useQuery({
    queryKey: flowCampaignsKeys.connections(),
    queryFn: ({ signal }) => api.get('/whatsapp', { params: { session: 0 }, schema: z.array(connectionOptionSchema), signal }),
    enabled,
  });
}

/** Flows for the searchable flow field (first page of the list, searched on the server). */
export function useFlowOptions(search: string, enabled = true) {
  return useQuery({
    queryKey: flowCampaignsKeys.flowOptions(search),
    queryFn: ({ signal }) =>
      api.get('/flowbuilder', { params: { searchParam: search.trim().toLowerCase(), pageNumber: 1 }, schema: z.object({ flows: z.array(flowSummarySchema) }), signal }),
    select: (page) => page.flows,
    enabled,
  });
}

/**
 * Dialog values and checks (spec 3 §5): name, flow and phrase must be set or nothing is sent; a
 * missing connection is flagged but does not block saving.
 */
export const phraseCampaignFormSchema = z.object({
  name: z.string().check(z.refine((v) => v.trim().length > 0, 'phraseLists.required')),
  // Past the check the flow is set: the output is the number, as classic zod's `refine` narrowed it.
  flowId: z.pipe(
    z.nullable(z.number()).check(z.refine((v) => v !== null, 'phraseLists.required')),
    z.transform((v) => v as number),
  ),
  whatsappId: z.union([z.number(), z.literal('')]),
  phrase: z.string().check(z.refine((v) => v.trim().length > 0, 'phraseLists.required')),
  status: z.boolean(),
});
export type PhraseCampaignFormValues = z.input<typeof phraseCampaignFormSchema>;

export function phraseCampaignBody(values: PhraseCampaignFormValues) {
  return {
    name: values.name.trim(),
    flowId: values.flowId,
    whatsappId: values.whatsappId === '' ? null : values.whatsappId,
    phrase: values.phrase.trim(),
  };
}

export function useSaveFlowCampaign() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, values }: { id: number | null; values: PhraseCampaignFormValues }) => {
      if (id !== null) return api.put('/flowcampaign', { id, ...phraseCampaignBody(values), status: values.status }, { schema: flowCampaignSchema });
      const created = await api.post('/flowcampaign', phraseCampaignBody(values), { schema: flowCampaignSchema });
      // A campaign is created active; one switched off in the dialog is then turned off.
      if (!values.status) return api.put('/flowcampaign', { id: created.id, ...phraseCampaignBody(values), status: false }, { schema: flowCampaignSchema });
      return created;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: flowCampaignsKeys.list() }),
  });
}

export function useDeleteFlowCampaign() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/flowcampaign/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: flowCampaignsKeys.list() }),
  });
}
