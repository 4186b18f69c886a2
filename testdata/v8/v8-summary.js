// The independent reference for heapfmt's V8 tests: reads a .heapsnapshot
// with the npm package v8-heapsnapshot (not heapfmt) and prints one JSON
// object: node and edge counts, nodes per type, and per node name the count
// and self_size total, for type "object" (objects) and for every type (all).
//   node v8-summary.js NODE_MODULES_DIR SNAPSHOT
'use strict';
const path = require('path');
const v8hs = require(path.resolve(process.argv[2], 'v8-heapsnapshot'));
v8hs.parseSnapshotFromFile(process.argv[3]).then((s) => {
  const r = { nodes: s.nodes.length, edges: s.edges.length, types: {}, objects: {}, all: {} };
  for (const n of s.nodes) {
    r.types[n.type] = (r.types[n.type] || 0) + 1;
    const add = (t) => { const e = t[n.name] || (t[n.name] = [0, 0]); e[0]++; e[1] += n.self_size; };
    add(r.all);
    if (n.type === 'object') add(r.objects);
  }
  let named = 0;
  for (const e of s.edges) if (typeof e.name === 'string') named++;
  r.named_edges = named;
  process.stdout.write(JSON.stringify(r) + '\n');
}, (e) => { console.error('v8-heapsnapshot: ' + e.message); process.exit(1); });
