/**
 * Flow builder calls (spec 3 §7 "Flow builder" and the flows HTTP contract): the list with search
 * and pages, create, rename, duplicate, delete, import/export, the graph (get, save the draft,
 * publish, versions, restore), per-node stats and media uploads.
 */
import { infiniteQueryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import {
  flowIssueSchema,
  flowSchema,
  flowStatsSchema,
  flowSummarySchema,
  flowVersionSchema,
  queueOptionSchema,
  type FlowGraph,
} from '../types';

export const flowsPageSchema = z.object({
  flows: z.array(flowSummarySchema),
  hasMore: z.catch(z.boolean(), false),
  count: z.nullish(z.number()),
});

export const flowsKeys = {
  all: ['flows'] as const,
  lists: () => [...flowsKeys.all, 'list'] as const,
  list: (search: string) => [...flowsKeys.lists(), search] as const,
  detail: (id: number) => [...flowsKeys.all, 'detail', id] as const,
  versions: (id: number) => [...flowsKeys.all, 'versions', id] as const,
  stats: (id: number) => [...flowsKeys.all, 'stats', id] as const,
  queues: () => [...flowsKeys.all, 'queues'] as const,
  integrations: () => [...flowsKeys.all, 'integrations'] as const,
};

/** Search text as the list sends it: trimmed and lower-cased (spec 3 §2.12). */
export function flowSearchParam(search: string): string {
  return search.trim().toLowerCase();
}

export const flowsInfiniteQuery = (search: string) =>
  infiniteQueryOptions({
    queryKey: flowsKeys.list(search),
    queryFn: ({ pageParam, signal }) => api.get('/flowbuilder', { params: { searchParam: search, pageNumber: pageParam }, schema: flowsPageSchema, signal }),
    initialPageParam: 1,
    getNextPageParam: (last, _all, lastParam) => (last.hasMore ? lastParam + 1 : undefined),
  });

export function useFlows(search: string) {
  return useInfiniteQuery(flowsInfiniteQuery(search));
}

/** The flow name rule (spec 3 §5): required, 2 to 50 characters. */
export const flowNameSchema = z.object({
  name: z
    .string()
    .check(z.trim(), z.minLength(1, 'flows.validation.nameRequired'), z.minLength(2, 'flows.validation.nameShort'), z.maxLength(50, 'flows.validation.nameLong')),
});
export type FlowNameValues = z.infer<typeof flowNameSchema>;

function useInvalidateFlows() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: flowsKeys.lists() });
}

/** Create (`POST /flowbuilder {name}`) or rename (`PUT /flowbuilder {flowId, name}`). */
export function useSaveFlowName() {
  const invalidate = useInvalidateFlows();
  return useMutation({
    mutationFn: ({ flowId, name }: { flowId: number | null; name: string }) =>
      flowId === null ? api.post('/flowbuilder', { name }, { schema: flowSummarySchema }) : api.put('/flowbuilder', { flowId, name }, { schema: flowSummarySchema }),
    onSuccess: invalidate,
  });
}

export function useDeleteFlow() {
  const invalidate = useInvalidateFlows();
  return useMutation({ mutationFn: (id: number) => api.delete(`/flowbuilder/${id}`), onSuccess: invalidate });
}

export function useDuplicateFlow() {
  const invalidate = useInvalidateFlows();
  return useMutation({
    mutationFn: (flowId: number) => api.post('/flowbuilder/duplicate', { flowId }, { schema: flowSummarySchema }),
    onSuccess: invalidate,
  });
}

/** `POST /flowbuilder/import` with the exported file's object (`{format, version, name, flow}`). */
export function useImportFlow() {
  const invalidate = useInvalidateFlows();
  return useMutation({
    mutationFn: (file: unknown) => api.post('/flowbuilder/import', file, { schema: flowSummarySchema }),
    onSuccess: invalidate,
  });
}

/** Downloads `GET /flowbuilder/{id}/export` as `<name>.json`. */
export async function exportFlow(id: number, name: string): Promise<void> {
  const blob = await api.blob(`/flowbuilder/${id}/export`);
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `${name.replace(/[^\p{L}\p{N} _-]+/gu, '').trim() || 'flow'}.json`;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

const flowResponseSchema = z.pipe(z.object({ flow: flowSchema }), z.transform((r) => r.flow));

/** The flow and its graph (draft first). */
export function useFlow(id: number, enabled = true) {
  return useQuery({
    queryKey: flowsKeys.detail(id),
    queryFn: ({ signal }) => api.get(`/flowbuilder/flow/${id}`, { schema: flowResponseSchema, signal }),
    enabled,
    // The editor owns the graph while it is open (no background refetch), and a later visit
    // loads it afresh (nothing kept once the editor closes).
    staleTime: Infinity,
    gcTime: 0,
  });
}

export const saveFlowResponseSchema = z.object({
  flow: z.nullish(flowSummarySchema),
  issues: z.catch(z.array(flowIssueSchema), []),
});

/** Saves the draft: `POST /flowbuilder/flow {idFlow, nodes, connections}` → `{flow, issues}`. */
export function useSaveFlowGraph(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (graph: FlowGraph) => api.post('/flowbuilder/flow', { idFlow: id, nodes: graph.nodes, connections: graph.connections }, { schema: saveFlowResponseSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: flowsKeys.lists() }),
  });
}

export function usePublishFlow(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post(`/flowbuilder/${id}/publish`, undefined, { schema: z.object({ version: z.number(), publishedAt: z.nullish(z.string()) }) }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: flowsKeys.versions(id) });
      void queryClient.invalidateQueries({ queryKey: flowsKeys.stats(id) });
      void queryClient.invalidateQueries({ queryKey: flowsKeys.lists() });
    },
  });
}

export function useFlowVersions(id: number, enabled: boolean) {
  return useQuery({
    queryKey: flowsKeys.versions(id),
    queryFn: ({ signal }) => api.get(`/flowbuilder/${id}/versions`, { schema: z.array(flowVersionSchema), signal }),
    enabled,
  });
}

/** Restores a version as the draft; answers like `GET /flowbuilder/flow/{id}`. */
export function useRestoreFlowVersion(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => api.post(`/flowbuilder/${id}/versions/${version}/restore`, undefined, { schema: flowResponseSchema }),
    onSuccess: (flow) => queryClient.setQueryData(flowsKeys.detail(id), flow),
  });
}

export function useFlowStats(id: number, enabled: boolean) {
  return useQuery({
    queryKey: flowsKeys.stats(id),
    queryFn: ({ signal }) => api.get(`/flowbuilder/${id}/stats`, { schema: flowStatsSchema, signal }),
    enabled,
  });
}

/** Queues for the ticket node. */
export function useQueueOptions(enabled = true) {
  return useQuery({
    queryKey: flowsKeys.queues(),
    queryFn: ({ signal }) => api.get('/queue', { schema: z.catch(z.array(queueOptionSchema), []), signal }),
    enabled,
    staleTime: 30_000,
  });
}

const integrationSchema = z.looseObject({ id: z.number(), name: z.string(), type: z.nullish(z.string()) });
export type IntegrationOption = z.infer<typeof integrationSchema>;
const integrationsSchema = z.catch(
  z.union([z.array(integrationSchema), z.pipe(z.object({ queueIntegrations: z.array(integrationSchema) }), z.transform((r) => r.queueIntegrations))]),
  [],
);

/** Typebot integrations for the typebot node (`GET /queueIntegration/`). */
export function useTypebotIntegrations(enabled = true) {
  return useQuery({
    queryKey: flowsKeys.integrations(),
    queryFn: ({ signal }) => api.get('/queueIntegration/', { schema: integrationsSchema, signal }).catch(() => [] as IntegrationOption[]),
    enabled,
    staleTime: 30_000,
    select: (list) => list.filter((i) => !i.type || i.type === 'typebot'),
  });
}

/** Media kinds and their upload routes. */
export type MediaKind = 'img' | 'audio' | 'video' | 'content';
const MEDIA_PATHS: Record<MediaKind, string> = { img: '/flowbuilder/img', audio: '/flowbuilder/audio', video: '/flowbuilder/video', content: '/flowbuilder/content' };

/** Uploads files (multipart field `medias`) and returns their stored names. */
export async function uploadFlowMedia(kind: MediaKind, files: File[]): Promise<string[]> {
  const body = new FormData();
  for (const file of files) body.append('medias', file, file.name);
  body.append('fromMe', 'true');
  const result = await api.post(MEDIA_PATHS[kind], body, { schema: z.object({ names: z.array(z.string()) }) });
  return result.names;
}

/** Where a stored media file is served. */
export function flowMediaPath(name: string): string {
  return `/flowbuilder/media/${encodeURIComponent(name)}`;
}

/** A stored media file's bytes (served to the company's users only, so fetched with the token). */
export function useFlowMedia(name: string) {
  return useQuery({
    queryKey: [...flowsKeys.all, 'media', name] as const,
    queryFn: ({ signal }) => api.blob(flowMediaPath(name), { signal }),
    enabled: name.length > 0,
    staleTime: Infinity,
    retry: false,
  });
}
