// Writes a V8 heap snapshot of a small, known heap for heapfmt's tests:
//   node make-snapshot.js OUT.heapsnapshot [N]
// The heap holds N (default 2000) objects of class Leaf, N/2 of class Branch
// (each holding two Leafs and an array), a Map of N/4 string keys and a few
// strings; tests compare every conversion against an independent parser, so
// nothing here needs exact counts.  With a large N (1000000) it makes the
// snapshot used to measure the reader's memory.
'use strict';
const v8 = require('v8');
const out = process.argv[2];
const n = Number(process.argv[3] || 2000);
if (!out) {
  console.error('usage: node make-snapshot.js OUT.heapsnapshot [N]');
  process.exit(2);
}
class Leaf {
  constructor(i) { this.i = i; this.label = 'leaf-' + (i % 97); }
}
class Branch {
  constructor(i) { this.left = new Leaf(i); this.right = new Leaf(i + 1); this.items = [i, i * 2]; }
}
const keep = { leaves: [], branches: [], map: new Map(), text: 'heapfmt \u00e9\u4e2d\ud83d\ude00 "quoted"\n' };
for (let i = 0; i < n; i++) keep.leaves.push(new Leaf(i));
for (let i = 0; i < n / 2; i++) keep.branches.push(new Branch(i));
for (let i = 0; i < n / 4; i++) keep.map.set('key-' + i, i);
globalThis.heapfmtKeep = keep;
v8.writeHeapSnapshot(out);
