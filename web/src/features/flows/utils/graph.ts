/**
 * Pure graph edits of the flow editor (spec 3 §4 "Flow editing", §9): node ids, placement in free
 * space, the single start node (placed on a new flow), duplicate and delete, and the conversion
 * between the wire graph and React Flow's nodes and edges (handles kept).
 */
import type { CSSProperties } from 'react';
import type { Edge, Node } from '@xyflow/react';
import type { FlowGraph, FlowNode, FlowNodeData, NodeKind, NodeType } from '../types';
import { startData } from './nodes';

/** Node id length (spec 3 §9). */
export const NODE_ID_LENGTH = 30;
/** The room kept free around a new node, px. */
export const NODE_GAP = 40;
/** The size assumed for a node not measured yet (nodes are 180 to 260 px wide). */
export const NEW_NODE_SIZE: Size = { width: 260, height: 140 };
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

/**
 * React Flow's node for one node type: its `type` and that type's data (React Flow holds data as
 * an object; a `singleBlock`'s free data is one, as the graph schema reads it).
 */
type EditorNodeOf<K extends FlowNodeData> = K extends FlowNodeData
  ? Node<K['data'] extends Record<string, unknown> ? K['data'] : Record<string, unknown>, K['type']> & { type: K['type'] }
  : never;
/** A node of the editor: a union over the node types, so `type` narrows `data`. */
export type EditorNode = EditorNodeOf<FlowNodeData>;
export type EditorEdge = Edge;

/** The wire node's parts as React Flow's node: `type` and `data` go together (each node's data is its type's). */
function editorNode(node: FlowNode): EditorNode {
  return {
    id: node.id,
    type: node.type,
    position: { x: node.position.x, y: node.position.y },
    data: node.data,
    ...(node.style ? { style: node.style as CSSProperties } : {}),
  } as EditorNode;
}

/** React Flow's node as the wire node; `type` and `data` go together as in {@link editorNode}. */
function wireNode(node: EditorNode): FlowNode {
  return {
    id: node.id,
    type: node.type,
    position: { x: node.position.x, y: node.position.y },
    data: node.data,
    ...(node.style ? { style: node.style as FlowNode['style'] } : {}),
  } as FlowNode;
}

/** Wire graph → React Flow nodes and edges. */
export function toEditor(graph: FlowGraph | null): { nodes: EditorNode[]; edges: EditorEdge[] } {
  if (!graph) return { nodes: [], edges: [] };
  const nodes = graph.nodes.map(editorNode);
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
    nodes: nodes.map(wireNode),
    connections: edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      ...(edge.sourceHandle ? { sourceHandle: edge.sourceHandle } : {}),
      ...(edge.targetHandle ? { targetHandle: edge.targetHandle } : {}),
    })),
  };
}

/**
 * What the editor holds as the saved graph would hold it: two states with the same signature save
 * the same. Selection, measuring and dragging flags do not count; a moved node, a changed text or
 * connection does.
 */
export function graphSignature(nodes: readonly EditorNode[], edges: readonly EditorEdge[]): string {
  return JSON.stringify(fromEditor(nodes, edges));
}

export interface Point {
  x: number;
  y: number;
}
export interface Size {
  width: number;
  height: number;
}
export type Rect = Point & Size;

/** A node's box on the canvas: its measured size, or {@link NEW_NODE_SIZE} before it is measured. */
export function nodeRect(node: EditorNode): Rect {
  return {
    x: node.position.x,
    y: node.position.y,
    width: node.measured?.width ?? node.width ?? NEW_NODE_SIZE.width,
    height: node.measured?.height ?? node.height ?? NEW_NODE_SIZE.height,
  };
}

/** How many rings of spots around the preferred one {@link placeNode} tries. */
const PLACEMENT_RINGS = 40;

/**
 * Where a new node of `size` goes (its top-left corner): at `preferred` when no node is within
 * `gap` of it there, else at the nearest free spot of a grid of half-node steps around `preferred`
 * (ring by ring; at equal distance, right before left and below before above). Should every spot
 * be taken, right of every node.
 */
export function placeNode(occupied: readonly Rect[], preferred: Point, size: Size = NEW_NODE_SIZE, gap = NODE_GAP): Point {
  const free = (x: number, y: number) =>
    occupied.every((r) => x >= r.x + r.width + gap || x + size.width + gap <= r.x || y >= r.y + r.height + gap || y + size.height + gap <= r.y);
  const stepX = Math.round((size.width + gap) / 2);
  const stepY = Math.round((size.height + gap) / 2);
  for (let ring = 0; ring <= PLACEMENT_RINGS; ring += 1) {
    const spots: { i: number; j: number; distance: number }[] = [];
    for (let i = -ring; i <= ring; i += 1)
      for (let j = -ring; j <= ring; j += 1) if (Math.max(Math.abs(i), Math.abs(j)) === ring) spots.push({ i, j, distance: Math.hypot(i * stepX, j * stepY) });
    spots.sort((a, b) => a.distance - b.distance || b.i - a.i || b.j - a.j);
    for (const { i, j } of spots) {
      const x = preferred.x + i * stepX;
      const y = preferred.y + j * stepY;
      if (free(x, y)) return { x, y };
    }
  }
  return { x: Math.max(...occupied.map((r) => r.x + r.width)) + gap, y: preferred.y };
}

/** The preferred spot of a new node when the view's centre is not known: right of the last node, or the origin. */
export function afterLastNode(nodes: readonly EditorNode[]): Point {
  const last = nodes[nodes.length - 1];
  return last ? { x: last.position.x + nodeRect(last).width + NODE_GAP, y: last.position.y } : { x: 0, y: 0 };
}

/** The start node a new flow opens with (spec 3 §3: id "1", label "Inicio do fluxo"). */
export function startNode(position: Point = { x: 0, y: 0 }): EditorNode {
  return { id: START_NODE_ID, type: 'start', position, data: startData() };
}

/** A node's type and data. */
export function kindOf(node: EditorNode): NodeKind {
  return { type: node.type, data: node.data } as NodeKind;
}

/** `node` (its place, selection and size kept) holding `kind`'s type and data: a dialog's result. */
export function withKind(node: EditorNode, kind: NodeKind): EditorNode {
  return { ...node, ...kind } as EditorNode;
}

/**
 * The graph the editor opens: a flow never saved (`null`) or saved with no node gets its start
 * node placed, saved with the next save like any edit. A graph with nodes is opened as it is (a
 * start the designer deleted is not put back; validation reports it).
 */
export function withStartNode(graph: FlowGraph | null): FlowGraph {
  if (graph && graph.nodes.length > 0) return graph;
  return fromEditor([startNode()], []);
}

/**
 * Adds a node of `kind`'s type and data at the free spot nearest to `near` (its top-left corner;
 * by default right of the last node); a new start replaces the old one (and its connections).
 */
export function addNode(
  nodes: readonly EditorNode[],
  edges: readonly EditorEdge[],
  kind: NodeKind,
  options: { near?: Point; random?: RandomSource } = {},
): { nodes: EditorNode[]; edges: EditorEdge[]; node: EditorNode } {
  const { type } = kind;
  let keptNodes = [...nodes];
  let keptEdges = [...edges];
  if (type === 'start') {
    const starts = new Set(nodes.filter((n) => n.type === 'start' || n.id === START_NODE_ID).map((n) => n.id));
    ({ nodes: keptNodes, edges: keptEdges } = deleteElements(nodes, edges, starts, new Set()));
  }
  const near = options.near ?? afterLastNode(keptNodes);
  const node = editorNode({
    id: type === 'start' ? START_NODE_ID : randomNodeId(options.random),
    position: placeNode(keptNodes.map(nodeRect), near),
    ...kind,
  });
  return { nodes: [...keptNodes, node], edges: keptEdges, node };
}

/**
 * Copies a node with a new id, right of the right-most node (a gap beyond its right edge), at the
 * original's height. The start is never copied.
 */
export function duplicateNode(nodes: readonly EditorNode[], id: string, random?: RandomSource): { nodes: EditorNode[]; node: EditorNode | null } {
  const original = nodes.find((n) => n.id === id);
  if (!original || original.type === 'start') return { nodes: [...nodes], node: null };
  const rightEdge = Math.max(...nodes.map((n) => nodeRect(n)).map((r) => r.x + r.width));
  const node = editorNode(structuredClone({ ...wireNode(original), id: randomNodeId(random), position: { x: rightEdge + NODE_GAP, y: original.position.y } }));
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
export function sourceHandles(node: NodeKind): string[] | null {
  if (node.type === 'menu') return node.data.arrayOption.map((option, index) => `a${option.number ?? index + 1}`);
  if (node.type === 'randomizer' || node.type === 'condition') return ['a', 'b'];
  return null;
}

/** Whether a node type ends the flow (no outgoing handle). */
export function isTerminal(type: NodeType): boolean {
  return type === 'ticket' || type === 'typebot' || type === 'openai';
}
