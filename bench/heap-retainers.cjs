// Not part of `npm run bench`: the largest retainers of a V8 heap snapshot
// (bench/idle-heap-snapshot.cjs writes one), by retained size: what would be
// freed with the object, from the dominator tree over strong edges (weak and
// shortcut edges left out, as DevTools does), computed with Cooper, Harvey
// and Kennedy's iterative algorithm. Prints the N largest (default 20), the
// edge each is held by, then self sizes by node type.
//
//   node bench/heap-retainers.cjs idle.heapsnapshot [N]
//   DIG='system / Context' node bench/heap-retainers.cjs idle.heapsnapshot
//     (and the largest children in the dominator tree of the first match)
const { readFileSync } = require('node:fs');

const snapshot = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const shown = Number(process.argv[3] ?? 20);
const { meta } = snapshot.snapshot;
const nodeFields = meta.node_fields.length;
const edgeFields = meta.edge_fields.length;
const [typeField, nameField, selfField, edgeCountField] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
  meta.node_fields.indexOf(f),
);
const [edgeTypeField, edgeNameField, toField] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
const nodeTypes = meta.node_types[typeField];
const edgeTypes = meta.edge_types[edgeTypeField];
const { nodes, edges, strings } = snapshot;
const count = nodes.length / nodeFields;
const firstEdge = new Uint32Array(count + 1);
for (let node = 0, edge = 0; node < count; node++) {
  firstEdge[node] = edge;
  edge += nodes[node * nodeFields + edgeCountField] * edgeFields;
  firstEdge[node + 1] = edge;
}
const ignored = new Set([edgeTypes.indexOf('weak'), edgeTypes.indexOf('shortcut')]);
function* strongEdges(node) {
  for (let edge = firstEdge[node]; edge < firstEdge[node + 1]; edge += edgeFields) {
    if (!ignored.has(edges[edge + edgeTypeField])) yield [edges[edge + toField] / nodeFields, edge];
  }
}

// Post-order from the root (node 0), without recursion: a heap is deep.
const postIndex = new Int32Array(count).fill(-1);
const postOrder = [];
const visited = new Uint8Array(count);
const stack = [[0, strongEdges(0)]];
visited[0] = 1;
while (stack.length > 0) {
  const [node, children] = stack[stack.length - 1];
  const next = children.next();
  if (next.done) {
    stack.pop();
    postIndex[node] = postOrder.length;
    postOrder.push(node);
  } else if (!visited[next.value[0]]) {
    visited[next.value[0]] = 1;
    stack.push([next.value[0], strongEdges(next.value[0])]);
  }
}
const predecessors = Array.from({ length: count }, () => []);
for (const node of postOrder) for (const [to] of strongEdges(node)) if (visited[to]) predecessors[to].push(node);
const dominator = new Int32Array(count).fill(-1);
dominator[0] = 0;
const intersect = (a, b) => {
  while (a !== b) {
    while (postIndex[a] < postIndex[b]) a = dominator[a];
    while (postIndex[b] < postIndex[a]) b = dominator[b];
  }
  return a;
};
for (let changed = true; changed; ) {
  changed = false;
  for (let index = postOrder.length - 2; index >= 0; index--) {
    const node = postOrder[index];
    let candidate = -1;
    for (const from of predecessors[node]) if (dominator[from] !== -1) candidate = candidate === -1 ? from : intersect(from, candidate);
    if (candidate !== dominator[node]) {
      dominator[node] = candidate;
      changed = true;
    }
  }
}
const retained = new Float64Array(count);
for (const node of postOrder) {
  retained[node] += nodes[node * nodeFields + selfField];
  if (node !== 0) retained[dominator[node]] += retained[node];
}

const kib = (bytes) => `${(bytes / 1024).toFixed(0).padStart(6)} KiB`;
const label = (node) => {
  const name = strings[nodes[node * nodeFields + nameField]];
  return `${nodeTypes[nodes[node * nodeFields + typeField]]} ${JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name)}`;
};
/** The edge its dominator holds it by, when there is one. */
const heldBy = (node) => {
  for (const [to, edge] of strongEdges(dominator[node])) {
    if (to !== node) continue;
    const type = edgeTypes[edges[edge + edgeTypeField]];
    const name = edges[edge + edgeNameField];
    return type === 'element' || type === 'hidden' ? `[${name}]` : strings[name];
  }
  return '';
};
console.log(`${kib(retained[0])} in all, ${count} nodes`);
const ranked = postOrder.filter((node) => node !== 0).sort((a, b) => retained[b] - retained[a]);
for (const node of ranked.slice(0, shown))
  console.log(`${kib(retained[node])}  ${label(node)}  held by ${label(dominator[node])} .${heldBy(node)}`);
const byType = new Map();
for (let node = 0; node < count; node++) {
  const type = nodeTypes[nodes[node * nodeFields + typeField]];
  byType.set(type, (byType.get(type) ?? 0) + nodes[node * nodeFields + selfField]);
}
console.log(
  [...byType]
    .sort((a, b) => b[1] - a[1])
    .map(([type, size]) => `${type} ${kib(size).trim()}`)
    .join(', '),
);
if (process.env.DIG !== undefined) {
  const pattern = new RegExp(process.env.DIG);
  const target = ranked.find((node) => pattern.test(label(node)));
  if (target !== undefined) {
    console.log(`\nin ${label(target)}:`);
    const children = ranked.filter((node) => dominator[node] === target).slice(0, shown);
    for (const node of children) console.log(`${kib(retained[node])}  .${heldBy(node)}  ${label(node)}`);
  }
}
