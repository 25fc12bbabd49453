/**
 * Flow builder wire types (spec 3 §3, /work contract "flows-api"): the flow list's summaries, the
 * editor's graph (`chatflow_core::flow::Flow`), validation issues and phrase campaigns. The graph's
 * node types are the core's, generated from its Rust definitions (`lib/core-types/generated.ts`).
 */
import { z } from 'zod';
import type { FlowGraph as CoreFlowGraph, FlowNode as CoreFlowNode, FlowNodeData } from '../../lib/core-types/generated';

/** A row of the flow list: `GET /flowbuilder`. */
export const flowSummarySchema = z
  .object({
    id: z.number(),
    name: z.string(),
    active: z.boolean().nullish().transform((v) => v !== false),
    updatedAt: z.string().nullish(),
    publishedVersion: z.number().nullish().transform((v) => v ?? null),
    hasDraft: z.boolean().nullish().transform((v) => !!v),
  })
  .loose();
export type FlowSummary = z.infer<typeof flowSummarySchema>;

/** A node's type on the wire: one of the core's node kinds (`chatflow_core::flow::NodeData::KINDS`). */
export type NodeType = FlowNodeData['type'];

/** Every node type the data may hold (spec 3 §3). */
export const NODE_TYPES = [
  'start',
  'message',
  'interval',
  'img',
  'audio',
  'video',
  'menu',
  'randomizer',
  'question',
  'content',
  'ticket',
  'typebot',
  'openai',
  'condition',
  'singleBlock',
] as const satisfies readonly NodeType[];
// Fails to compile when the core has a node type this list lacks.
type Expect<T extends true> = T;
export type _EveryNodeTypeListed = Expect<[Exclude<NodeType, (typeof NODE_TYPES)[number]>] extends [never] ? true : false>;

/** The `data` of a node of type `T`. */
export type NodeDataOf<T extends NodeType> = Extract<FlowNodeData, { type: T }>['data'];
/** Any node's `data`. */
export type NodeData = FlowNodeData['data'];
export type { FlowNodeData };
/** A node's type and its data, paired as on the wire (a new node, a dialog's result). */
export type NodeKind = FlowNodeData;

/** A node as the server sends it (the core's `Flow` written again: the fields have their types). */
export type FlowNode = CoreFlowNode;
/** The editor's graph. */
export type FlowGraph = CoreFlowGraph;

/**
 * A node of the wire graph. Parsed loosely (unknown fields kept); the server answers only graphs
 * the core parsed and wrote again, so each node's `data` is its type's ({@link FlowNode}).
 */
export const flowNodeSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    position: z.object({ x: z.number(), y: z.number() }).catch({ x: 0, y: 0 }),
    data: z.record(z.string(), z.unknown()).nullish().transform((v) => v ?? {}),
    style: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose()
  .transform((node) => node as FlowNode);

export const flowConnectionSchema = z
  .object({
    id: z.string().nullish(),
    source: z.string(),
    target: z.string(),
    sourceHandle: z.string().nullish(),
    targetHandle: z.string().nullish(),
  })
  .loose();

/** The editor's graph. */
export const flowGraphSchema = z.object({
  nodes: z.array(flowNodeSchema).catch([]),
  connections: z.array(flowConnectionSchema).catch([]),
});

/** `GET /flowbuilder/flow/{id}`'s `flow`: the draft when there is one, else the published graph. */
export const flowSchema = z
  .object({
    id: z.number(),
    name: z.string(),
    active: z.boolean().nullish().transform((v) => v !== false),
    flow: flowGraphSchema.nullish().transform((v) => v ?? null),
    version: z.number().nullish().transform((v) => v ?? null),
    draft: z.boolean().nullish().transform((v) => !!v),
  })
  .loose();
export type Flow = z.infer<typeof flowSchema>;

/** A validation issue the core found on save or publish. */
export const flowIssueSchema = z
  .object({
    nodeId: z.string().nullish().transform((v) => v ?? null),
    code: z.string(),
    message: z.string().nullish().transform((v) => v ?? ''),
  })
  .loose();
export type FlowIssue = z.infer<typeof flowIssueSchema>;

export const flowVersionSchema = z
  .object({
    version: z.number(),
    publishedAt: z.string(),
    publishedBy: z.object({ id: z.number(), name: z.string() }).nullish(),
  })
  .loose();
export type FlowVersion = z.infer<typeof flowVersionSchema>;

export const flowStatsSchema = z.object({
  version: z.number().nullish(),
  nodes: z.record(z.string(), z.object({ entered: z.number(), stopped: z.number() })).catch({}),
});
export type FlowStats = z.infer<typeof flowStatsSchema>;

/** A phrase campaign (spec 3 §2.14). */
export const flowCampaignSchema = z
  .object({
    id: z.number(),
    name: z.string(),
    flowId: z.number().nullish().transform((v) => v ?? null),
    whatsappId: z.number().nullish().transform((v) => v ?? null),
    phrase: z.string().nullish().transform((v) => v ?? ''),
    status: z.boolean().nullish().transform((v) => v !== false),
  })
  .loose();
export type FlowCampaign = z.infer<typeof flowCampaignSchema>;

/** A connection as the phrase dialog lists it (`GET /whatsapp`). */
export const connectionOptionSchema = z.object({ id: z.number(), name: z.string(), status: z.string().nullish() }).loose();
export type ConnectionOption = z.infer<typeof connectionOptionSchema>;

/** A queue for the ticket node (`GET /queue`). */
export const queueOptionSchema = z.object({ id: z.number(), name: z.string(), color: z.string().nullish() }).loose();
export type QueueOption = z.infer<typeof queueOptionSchema>;
