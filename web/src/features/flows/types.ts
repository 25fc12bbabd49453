/**
 * Flow builder wire types (spec 3 §3, /work contract "flows-api"): the flow list's summaries, the
 * editor's graph (`chatflow_core::flow::Flow`), validation issues and phrase campaigns. The graph's
 * node types are the core's, generated from its Rust definitions (`lib/core-types/generated.ts`).
 */
import { z } from 'zod/mini';
import type { FlowGraph as CoreFlowGraph, FlowNode as CoreFlowNode, FlowNodeData } from '../../lib/core-types/generated';

/** A row of the flow list: `GET /flowbuilder`. */
export const flowSummarySchema = z.looseObject({
  id: z.number(),
  name: z.string(),
  active: z.pipe(z.nullish(z.boolean()), z.transform((v) => v !== false)),
  updatedAt: z.nullish(z.string()),
  publishedVersion: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  hasDraft: z.pipe(z.nullish(z.boolean()), z.transform((v) => !!v)),
});
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
export const flowNodeSchema = z.pipe(
  z.looseObject({
    id: z.string(),
    type: z.string(),
    position: z.catch(z.object({ x: z.number(), y: z.number() }), { x: 0, y: 0 }),
    data: z.pipe(z.nullish(z.record(z.string(), z.unknown())), z.transform((v) => v ?? {})),
    style: z.nullish(z.record(z.string(), z.unknown())),
  }),
  z.transform((node) => node as FlowNode),
);

export const flowConnectionSchema = z.looseObject({
  id: z.nullish(z.string()),
  source: z.string(),
  target: z.string(),
  sourceHandle: z.nullish(z.string()),
  targetHandle: z.nullish(z.string()),
});

/** The editor's graph. */
export const flowGraphSchema = z.object({
  nodes: z.catch(z.array(flowNodeSchema), []),
  connections: z.catch(z.array(flowConnectionSchema), []),
});

/** `GET /flowbuilder/flow/{id}`'s `flow`: the draft when there is one, else the published graph. */
export const flowSchema = z.looseObject({
  id: z.number(),
  name: z.string(),
  active: z.pipe(z.nullish(z.boolean()), z.transform((v) => v !== false)),
  flow: z.pipe(z.nullish(flowGraphSchema), z.transform((v) => v ?? null)),
  version: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  draft: z.pipe(z.nullish(z.boolean()), z.transform((v) => !!v)),
});
export type Flow = z.infer<typeof flowSchema>;

/** A validation issue the core found on save or publish. */
export const flowIssueSchema = z.looseObject({
  nodeId: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? null)),
  code: z.string(),
  message: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
});
export type FlowIssue = z.infer<typeof flowIssueSchema>;
/** The issues a refused save or publish carries in its error body. */
export const flowIssuesSchema = z.array(flowIssueSchema);

export const flowVersionSchema = z.looseObject({
  version: z.number(),
  publishedAt: z.string(),
  publishedBy: z.nullish(z.object({ id: z.number(), name: z.string() })),
});
export type FlowVersion = z.infer<typeof flowVersionSchema>;

export const flowStatsSchema = z.object({
  version: z.nullish(z.number()),
  nodes: z.catch(z.record(z.string(), z.object({ entered: z.number(), stopped: z.number() })), {}),
});
export type FlowStats = z.infer<typeof flowStatsSchema>;

/** A phrase campaign (spec 3 §2.14). */
export const flowCampaignSchema = z.looseObject({
  id: z.number(),
  name: z.string(),
  flowId: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  whatsappId: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  phrase: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  status: z.pipe(z.nullish(z.boolean()), z.transform((v) => v !== false)),
});
export type FlowCampaign = z.infer<typeof flowCampaignSchema>;

/** A connection as the phrase dialog lists it (`GET /whatsapp`). */
export const connectionOptionSchema = z.looseObject({ id: z.number(), name: z.string(), status: z.nullish(z.string()) });
export type ConnectionOption = z.infer<typeof connectionOptionSchema>;

/** A queue for the ticket node (`GET /queue`). */
export const queueOptionSchema = z.looseObject({ id: z.number(), name: z.string(), color: z.nullish(z.string()) });
export type QueueOption = z.infer<typeof queueOptionSchema>;
