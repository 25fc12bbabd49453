/**
 * Pure graph edits of the flow editor (spec 3 §4 "Flow editing", §9): node ids, placement, the
 * single start node, duplicate and delete, and the conversion between the wire graph and React
 * Flow's nodes and edges (handles kept).
 */
import type { Edge, Node } from '@xyflow/react';
import type { FlowGraph, NodeData, NodeType } from '../types';

/** Node id length (spec 3 §9). */
export const NODE_ID_LENGTH = 30;
/** A new node goes this far right of the last node. */
export const NEW_NODE_OFFSET = 40;
/** A duplicate goes this far right of the right-most node. */
export const DUPLICATE_OFFSET = 240;
/** The start node's id (spec 3 §3). */
export const START_NODE_ID = '1';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Fills `bytes` with random values; `crypto.getRandomValues` unless a test passes its own. */
export type RandomSource = (bytes: Uint8Array<ArrayBuffer>) => void;
const cryptoSource: RandomSource = (bytes) => {
  crypto.getRandomValues(bytes);
};

/** A random 30-character alphanumeric id. */
export function randomNodeId(random: RandomSource = cryptoSource): string {
  const out: string[] = [];
  while (out.length < NODE_ID_LENGTH) {
    const bytes = new Uint8Array(NODE_ID_LENGTH);
    random(bytes);
    // 248 = 4 * 62: drop higher bytes so every character is equally likely.
    for (const byte of bytes) if (byte < 248 && out.length < NODE_ID_LENGTH) out.push(ALPHABET[byte % 62]);
  }
  return out.join('');
}

/** A node of the editor: React Flow's node with the wire data as its data. */
export type EditorNode = Node<NodeData, string>;
export type EditorEdge = Edge;

/** Wire graph → React Flow nodes and edges. */
export function toEditor(graph: FlowGraph | null): { nodes: EditorNode[]; edges: EditorEdge[] } {
  if (!graph) return { nodes: [], edges: [] };
  const nodes: EditorNode[] = graph.nodes.map((node) => ({
    id: node.id,
    type: node.type,
    position: { x: node.position.x, y: node.position.y },
    data: node.data,
    ...(node.style ? { style: node.style as EditorNode['style'] } : {}),
  }));
  const edges: EditorEdge[] = graph.connections.map((c, index) => ({
    id: c.id ?? `e-${c.source}-${c.sourceHandle ?? ''}-${c.target}-${index}`,
    source: c.source,
    target: c.target,
    sourceHandle: c.sourceHandle ?? null,
    targetHandle: c.targetHandle ?? null,
  }));
  return { nodes, edges };
}

/** React Flow nodes and edges → the wire graph `save` sends. */
export function fromEditor(nodes: readonly EditorNode[], edges: readonly EditorEdge[]): FlowGraph {
  return {
    nodes: nodes.map((node) => ({
      id: node.id,
      type: node.type ?? 'message',
      position: { x: node.position.x, y: node.position.y },
      data: node.data,
      ...(node.style ? { style: node.style as Record<string, unknown> } : {}),
    })),
    connections: edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      ...(edge.sourceHandle ? { sourceHandle: edge.sourceHandle } : {}),
      ...(edge.targetHandle ? { targetHandle: edge.targetHandle } : {}),
    })),
  };
}

/** Where a new node goes: 40 px right of the last node, or the origin on an empty canvas. */
export function newNodePosition(nodes: readonly EditorNode[]): { x: number; y: number } {
  const last = nodes[nodes.length - 1];
  return last ? { x: last.position.x + NEW_NODE_OFFSET, y: last.position.y } : { x: 0, y: 0 };
}

/** Adds a node of `type`; a new start replaces the old one (and its connections). */
export function addNode(
  nodes: readonly EditorNode[],
  edges: readonly EditorEdge[],
  type: NodeType,
  data: NodeData,
  random?: RandomSource,
): { nodes: EditorNode[]; edges: EditorEdge[]; node: EditorNode } {
  let keptNodes = [...nodes];
  let keptEdges = [...edges];
  if (type === 'start') {
    const starts = new Set(nodes.filter((n) => n.type === 'start' || n.id === START_NODE_ID).map((n) => n.id));
    ({ nodes: keptNodes, edges: keptEdges } = deleteElements(nodes, edges, starts, new Set()));
  }
  const node: EditorNode = {
    id: type === 'start' ? START_NODE_ID : randomNodeId(random),
    type,
    position: newNodePosition(keptNodes.length ? keptNodes : nodes),
    data,
  };
  return { nodes: [...keptNodes, node], edges: keptEdges, node };
}

/** Copies a node with a new id, 240 px right of the right-most node. The start is never copied. */
export function duplicateNode(nodes: readonly EditorNode[], id: string, random?: RandomSource): { nodes: EditorNode[]; node: EditorNode | null } {
  const original = nodes.find((n) => n.id === id);
  if (!original || original.type === 'start') return { nodes: [...nodes], node: null };
  const rightMost = Math.max(...nodes.map((n) => n.position.x));
  const node: EditorNode = {
    id: randomNodeId(random),
    type: original.type,
    position: { x: rightMost + DUPLICATE_OFFSET, y: original.position.y },
    data: structuredClone(original.data),
    ...(original.style ? { style: { ...original.style } } : {}),
  };
  return { nodes: [...nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), node], node };
}

/** Removes nodes (and every connection touching them) and edges. */
export function deleteElements(
  nodes: readonly EditorNode[],
  edges: readonly EditorEdge[],
  nodeIds: ReadonlySet<string>,
  edgeIds: ReadonlySet<string>,
): { nodes: EditorNode[]; edges: EditorEdge[] } {
  return {
    nodes: nodes.filter((n) => !nodeIds.has(n.id)),
    edges: edges.filter((e) => !edgeIds.has(e.id) && !nodeIds.has(e.source) && !nodeIds.has(e.target)),
  };
}

/**
 * Moves the connections leaving `nodeId` to their new handles (`handles`: old → new, null when
 * the branch is gone, whose connections are dropped).
 */
export function remapHandles(edges: readonly EditorEdge[], nodeId: string, handles: Readonly<Record<string, string | null>>): EditorEdge[] {
  return edges.flatMap((edge) => {
    if (edge.source !== nodeId || !edge.sourceHandle || !(edge.sourceHandle in handles)) return [edge];
    const next = handles[edge.sourceHandle];
    return next ? [{ ...edge, sourceHandle: next }] : [];
  });
}

/** Branch handles of a node (spec 3 §3, the contract): menu `a{n}`, randomizer and condition `a`/`b`. */
export function sourceHandles(type: string | undefined, data: NodeData): string[] | null {
  if (type === 'menu') {
    const options = Array.isArray(data.arrayOption) ? (data.arrayOption as { number?: unknown }[]) : [];
    return options.map((option, index) => `a${String(option.number ?? index + 1)}`);
  }
  if (type === 'randomizer' || type === 'condition') return ['a', 'b'];
  return null;
}

/** Whether a node type ends the flow (no outgoing handle). */
export function isTerminal(type: string | undefined): boolean {
  return type === 'ticket' || type === 'typebot' || type === 'openai';
}
