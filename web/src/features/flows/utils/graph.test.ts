import { describe, expect, it } from 'vitest';
import { addNode, deleteElements, duplicateNode, fromEditor, newNodePosition, randomNodeId, remapHandles, sourceHandles, toEditor, type EditorEdge, type EditorNode } from './graph';
import { contentProblem, mediaProblem, renumberMenu } from './nodes';

const node = (id: string, type: string, x: number, y = 0): EditorNode => ({ id, type, position: { x, y }, data: {} });
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

  it('places a new node 40 px right of the last one', () => {
    expect(newNodePosition([])).toEqual({ x: 0, y: 0 });
    expect(newNodePosition([node('a', 'message', 10, 5), node('b', 'message', 300, 80)])).toEqual({ x: 340, y: 80 });
  });

  it('replaces the old start and its connections when a start is added', () => {
    const nodes = [node('1', 'start', 0), node('m', 'message', 200)];
    const edges = [edge('1', 'm')];
    const next = addNode(nodes, edges, 'start', { label: 'Inicio do fluxo' });
    expect(next.nodes.filter((n) => n.type === 'start')).toHaveLength(1);
    expect(next.nodes.map((n) => n.id)).toEqual(['m', '1']);
    expect(next.edges).toEqual([]);
    const other = addNode(next.nodes, next.edges, 'message', { label: 'Oi' });
    expect(other.node.id).toMatch(/^[A-Za-z0-9]{30}$/);
    expect(other.node.position).toEqual({ x: 280, y: 0 });
  });

  it('duplicates 240 px right of the right-most node with a new id, never the start', () => {
    const nodes = [node('1', 'start', 0), node('m', 'message', 100, 50), node('z', 'interval', 500, 10)];
    const { nodes: next, node: copy } = duplicateNode(nodes, 'm');
    expect(copy?.position).toEqual({ x: 740, y: 50 });
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
    const graph = {
      nodes: [{ id: 'm', type: 'menu', position: { x: 1, y: 2 }, data: { message: 'Escolha', arrayOption: [{ number: 1, value: 'A' }] } }],
      connections: [{ id: 'c1', source: 'm', target: 'x', sourceHandle: 'a1' }],
    };
    const { nodes, edges } = toEditor(graph);
    expect(fromEditor(nodes, edges)).toEqual(graph);
    expect(sourceHandles('menu', graph.nodes[0].data)).toEqual(['a1']);
    expect(sourceHandles('randomizer', {})).toEqual(['a', 'b']);
    expect(sourceHandles('message', {})).toBeNull();
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
    expect(contentProblem([{ type: 'message', value: ' ', original: '', number: 'message0' }])).toBe('flows.validation.emptyMessage');
    expect(contentProblem([{ type: 'interval', value: '121', original: '', number: 'interval0' }])).toBe('flows.validation.contentInterval');
    expect(contentProblem([{ type: 'interval', value: '0', original: '', number: 'interval0' }])).toBe('flows.validation.contentInterval');
    expect(contentProblem([{ type: 'img', value: '', original: '', number: 'img0' }])).toBe('flows.validation.emptyMedia');
    expect(contentProblem([{ type: 'interval', value: '120', original: '', number: 'interval0' }])).toBeNull();
  });

  it('checks media types and sizes', () => {
    expect(mediaProblem('img', { name: 'a.PNG', size: 2 * 1024 * 1024 })).toBeNull();
    expect(mediaProblem('img', { name: 'a.png', size: 2 * 1024 * 1024 + 1 })).toBe('flows.validation.imgTooLarge');
    expect(mediaProblem('img', { name: 'a.gif', size: 1 })).toBe('flows.validation.imgType');
    expect(mediaProblem('audio', { name: 'a.opus', size: 1 })).toBe('flows.validation.audioType');
    expect(mediaProblem('audio', { name: 'a.opus', size: 1 }, true)).toBeNull();
    expect(mediaProblem('video', { name: 'a.mp4', size: 20 * 1024 * 1024 + 1 })).toBe('flows.validation.videoTooLarge');
  });
});
