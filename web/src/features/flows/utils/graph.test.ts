import { describe, expect, it } from 'vitest';
import {
  addNode,
  deleteElements,
  duplicateNode,
  fromEditor,
  NEW_NODE_SIZE,
  NODE_GAP,
  nodeRect,
  placeNode,
  randomNodeId,
  remapHandles,
  sourceHandles,
  toEditor,
  withStartNode,
  type EditorEdge,
  type EditorNode,
  type Rect,
} from './graph';
import { currentRules } from '../../../lib/wasm/rules';
import { contentProblem, mediaProblem, renumberMenu } from './nodes';
import type { FlowGraph, NodeType } from '../types';

// The core's flow limits, from the real WASM build the test setup loads.
const limits = currentRules()!.flowLimits();

// Nodes whose data the edits do not read (React Flow keeps `data` as it is).
const node = (id: string, type: NodeType, x: number, y = 0) => ({ id, type, position: { x, y }, data: {} }) as EditorNode;
const edge = (source: string, target: string, sourceHandle?: string): EditorEdge => ({ id: `${source}-${target}`, source, target, sourceHandle });

describe('flow graph edits', () => {
  it('makes 30-character alphanumeric ids, different each time', () => {
    const ids = Array.from({ length: 50 }, () => randomNodeId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{30}$/);
    expect(new Set(ids).size).toBe(50);
    // Bytes of 248 and above are skipped, so a source giving only those never picks a character.
    let calls = 0;
    const id = randomNodeId((bytes) => {
      calls += 1;
      bytes.fill(calls === 1 ? 255 : 1);
    });
    expect(id).toBe('B'.repeat(30));
  });

  it('opens a flow never saved, or saved empty, with its start node "1"; any other graph as it is', () => {
    const start = { id: '1', type: 'start', position: { x: 0, y: 0 }, data: { label: 'Inicio do fluxo' } };
    expect(withStartNode(null)).toEqual({ nodes: [start], connections: [] });
    expect(withStartNode({ nodes: [], connections: [] })).toEqual({ nodes: [start], connections: [] });
    // A designer who deleted the start keeps the graph as saved (validation reports it).
    const noStart: FlowGraph = { nodes: [{ id: 'm', type: 'message', position: { x: 5, y: 5 }, data: { label: 'Oi' } }], connections: [] };
    expect(withStartNode(noStart)).toBe(noStart);
  });

  it('replaces the old start and its connections when a start is added', () => {
    const nodes = [node('1', 'start', 0), node('m', 'message', 200)];
    const edges = [edge('1', 'm')];
    const next = addNode(nodes, edges, { type: 'start', data: { label: 'Inicio do fluxo' } });
    expect(next.nodes.filter((n) => n.type === 'start')).toHaveLength(1);
    expect(next.nodes.map((n) => n.id)).toEqual(['m', '1']);
    expect(next.edges).toEqual([]);
    // Without a view to aim at, a new node goes right of the last one, a gap beyond its width.
    expect(next.nodes[1].position).toEqual({ x: 200 + NEW_NODE_SIZE.width + NODE_GAP, y: 0 });
    const other = addNode(next.nodes, next.edges, { type: 'message', data: { label: 'Oi' } });
    expect(other.node.id).toMatch(/^[A-Za-z0-9]{30}$/);
    expect(other.node.position).toEqual({ x: 200 + 2 * (NEW_NODE_SIZE.width + NODE_GAP), y: 0 });
  });

  it('duplicates right of the right-most node with a new id, never the start', () => {
    const nodes = [node('1', 'start', 0), node('m', 'message', 100, 50), { ...node('z', 'interval', 500, 10), measured: { width: 300, height: 80 } }];
    const { nodes: next, node: copy } = duplicateNode(nodes, 'm');
    // A gap beyond the right-most node's right edge, at the original's height: it overlaps nothing.
    expect(copy?.position).toEqual({ x: 500 + 300 + NODE_GAP, y: 50 });
    for (const other of nodes) expect(overlaps(nodeRect(copy!), nodeRect(other))).toBe(false);
    expect(copy?.id).not.toBe('m');
    expect(next).toHaveLength(4);
    expect(duplicateNode(nodes, '1').node).toBeNull();
  });

  it('deletes a node with every connection touching it', () => {
    const nodes = [node('a', 'message', 0), node('b', 'message', 1), node('c', 'message', 2)];
    const edges = [edge('a', 'b'), edge('b', 'c'), edge('a', 'c')];
    const next = deleteElements(nodes, edges, new Set(['b']), new Set());
    expect(next.nodes.map((n) => n.id)).toEqual(['a', 'c']);
    expect(next.edges.map((e) => e.id)).toEqual(['a-c']);
    expect(deleteElements(nodes, edges, new Set(), new Set(['a-c'])).edges.map((e) => e.id)).toEqual(['a-b', 'b-c']);
  });

  it('round-trips the wire graph with its handles', () => {
    const graph: FlowGraph = {
      nodes: [{ id: 'm', type: 'menu', position: { x: 1, y: 2 }, data: { message: 'Escolha', arrayOption: [{ number: 1, value: 'A' }] } }],
      connections: [{ id: 'c1', source: 'm', target: 'x', sourceHandle: 'a1' }],
    };
    const { nodes, edges } = toEditor(graph);
    expect(fromEditor(nodes, edges)).toEqual(graph);
    expect(sourceHandles(graph.nodes[0])).toEqual(['a1']);
    expect(sourceHandles({ type: 'randomizer', data: { percent: null } })).toEqual(['a', 'b']);
    expect(sourceHandles({ type: 'message', data: { label: '' } })).toBeNull();
  });
});

const overlaps = (a: Rect, b: Rect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const rect = (x: number, y: number, width = NEW_NODE_SIZE.width, height = NEW_NODE_SIZE.height): Rect => ({ x, y, width, height });

describe('placing a new node', () => {
  it('takes the preferred spot when it is free, a gap away from every node', () => {
    expect(placeNode([], { x: 10, y: 20 })).toEqual({ x: 10, y: 20 });
    expect(placeNode([rect(0, 0)], { x: NEW_NODE_SIZE.width + NODE_GAP, y: 0 })).toEqual({ x: NEW_NODE_SIZE.width + NODE_GAP, y: 0 });
  });

  it('moves off a node in the way to the nearest free spot, below before above and right before left', () => {
    const size = { width: 200, height: 100 };
    // Half steps: 120 px across, 70 px down. Two steps down (140 px) clear the node's 100 px and the gap.
    expect(placeNode([rect(0, 0, 200, 100)], { x: 0, y: 0 }, size)).toEqual({ x: 0, y: 140 });
    // With the spots below taken too, above is next.
    expect(placeNode([rect(0, 0, 200, 100), rect(0, 140, 200, 100)], { x: 0, y: 0 }, size)).toEqual({ x: 0, y: -140 });
  });

  it('never lands on a node, however crowded the canvas (the defect: each new node on the last)', () => {
    // A pseudo-random, repeatable crowd of measured nodes around the centre.
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const crowd = Array.from({ length: 60 }, () => rect(Math.round(next() * 1600 - 800), Math.round(next() * 1200 - 600), 180 + Math.round(next() * 80), 60 + Math.round(next() * 200)));
    const placed: Rect[] = [...crowd];
    for (let i = 0; i < 10; i += 1) {
      const spot = placeNode(placed, { x: 0, y: 0 });
      const box = rect(spot.x, spot.y);
      for (const other of placed) expect(overlaps(box, other)).toBe(false);
      placed.push(box);
    }
  });

  it('adds node after node at the same aim (the view\'s centre) without overlapping', () => {
    let nodes: EditorNode[] = [node('1', 'start', 0)];
    for (let i = 0; i < 5; i += 1) nodes = addNode(nodes, [], { type: 'message', data: { label: `m${i}` } }, { near: { x: 0, y: 0 } }).nodes;
    const boxes = nodes.map(nodeRect);
    for (let i = 0; i < boxes.length; i += 1) for (let j = i + 1; j < boxes.length; j += 1) expect(overlaps(boxes[i], boxes[j]), `${i} and ${j}`).toBe(false);
  });

  it('uses a node\'s measured size, and an estimate before it is measured', () => {
    expect(nodeRect({ ...node('a', 'menu', 5, 6), measured: { width: 200, height: 180 } })).toEqual({ x: 5, y: 6, width: 200, height: 180 });
    expect(nodeRect(node('a', 'menu', 5, 6))).toEqual(rect(5, 6));
  });
});

describe('menu options', () => {
  it('renumbers options and moves or drops the connections of their handles', () => {
    const before = [{ number: 1 }, { number: 2 }, { number: 3 }];
    // Option 1 removed, a new one added at the end.
    const { arrayOption, handles } = renumberMenu(before, [
      { number: 2, value: 'B' },
      { number: 3, value: 'C' },
      { number: 0, value: 'D' },
    ]);
    expect(arrayOption).toEqual([
      { number: 1, value: 'B' },
      { number: 2, value: 'C' },
      { number: 3, value: 'D' },
    ]);
    expect(handles).toEqual({ a1: null, a2: 'a1', a3: 'a2' });
    const edges = [edge('m', 'x', 'a1'), edge('m', 'y', 'a2'), edge('m', 'z', 'a3'), edge('o', 'x', 'a1')];
    expect(remapHandles(edges, 'm', handles).map((e) => [e.target, e.sourceHandle])).toEqual([
      ['y', 'a1'],
      ['z', 'a2'],
      ['x', 'a1'],
    ]);
  });
});

describe('node content rules', () => {
  it('checks content elements with the spec texts', () => {
    expect(contentProblem([{ type: 'message', value: ' ', original: '', number: 'message0' }], limits)).toBe('flows.validation.emptyMessage');
    expect(contentProblem([{ type: 'interval', value: '121', original: '', number: 'interval0' }], limits)).toBe('flows.validation.contentInterval');
    expect(contentProblem([{ type: 'interval', value: '0', original: '', number: 'interval0' }], limits)).toBe('flows.validation.contentInterval');
    expect(contentProblem([{ type: 'img', value: '', original: '', number: 'img0' }], limits)).toBe('flows.validation.emptyMedia');
    expect(contentProblem([{ type: 'interval', value: '120', original: '', number: 'interval0' }], limits)).toBeNull();
  });

  it('checks media types and sizes', () => {
    expect(mediaProblem('img', { name: 'a.PNG', size: 2 * 1024 * 1024 }, limits)).toBeNull();
    expect(mediaProblem('img', { name: 'a.png', size: 2 * 1024 * 1024 + 1 }, limits)).toBe('flows.validation.imgTooLarge');
    expect(mediaProblem('img', { name: 'a.gif', size: 1 }, limits)).toBe('flows.validation.imgType');
    expect(mediaProblem('audio', { name: 'a.opus', size: 1 }, limits)).toBe('flows.validation.audioType');
    expect(mediaProblem('audio', { name: 'a.opus', size: 1 }, limits, true)).toBeNull();
    expect(mediaProblem('video', { name: 'a.mp4', size: 20 * 1024 * 1024 + 1 }, limits)).toBe('flows.validation.videoTooLarge');
  });
});

describe('the core’s flow limits in the editor', () => {
  it('names every condition operator the core offers, in every language', async () => {
    const catalogues = await Promise.all([import('../locales/pt'), import('../locales/en'), import('../locales/es'), import('../locales/tr')]);
    for (const { default: catalogue } of catalogues) {
      const labels = catalogue.flows.dialog.operators as Record<string, string>;
      for (const op of limits.conditionOperators) expect(labels[op], op).toBeTruthy();
    }
  });
});
