-- heapdb.sql: the heap database that hprof2heapdb writes (heapfmt schema 1).
--
-- This file is the documented form of the DDL that libheapfmt/src/heapdb.c
-- runs for an HPROF conversion, statement for statement and column for
-- column; `sqlite3 :memory: < schema/heapdb.sql` builds an empty database of
-- the same shape.  The contract for users is schema/README.md; this file says
-- what every table and column holds.
--
-- Conventions that hold throughout:
--  * Identifiers (object ids, class ids, frame ids) are the dump's own
--    unsigned 64-bit ids.  SQLite integers are signed, so an id of 2^63 or
--    more is stored as that value minus 2^64 (a negative number).  No HotSpot
--    or Android dump has met one so far (their ids are addresses below 2^63),
--    but a reader that wants to be exact converts with
--    (CASE WHEN x < 0 THEN x + 18446744073709551616.0 ELSE x END) or in its
--    own language.
--  * An id column holding 0 means "none" (null reference, no superclass,
--    bootstrap class loader, unknown class).
--  * A string id (kind string_ref) is a strings.stringid; 0 means "no string"
--    (the dump named a UTF8 id it never wrote, or there is none).
--  * NULL in a subtype or record table means that the field is absent from
--    that record (the NDJSON line leaves the key out).
--  * "dump" numbers the heap dumps of the file, from 0, in file order.  A
--    file may hold several (HotSpot's hprof agent writes one HEAP DUMP per
--    request); every node, edge and GC root carries its dump, and an object
--    id is unique only within its dump.
--  * Sizes are in bytes.
--
-- The subtype tables (node_class ...) and the record tables (hprof_gc_root
-- ...) are created from the type declarations of the conversion, so a
-- future reader with other types adds tables of the same pattern:
--   node subtype:  CREATE TABLE "<table>" (node_identifier INTEGER NOT NULL,
--                  dump INTEGER NOT NULL, "<field>" <type>, ...,
--                  PRIMARY KEY (node_identifier, dump)) WITHOUT ROWID;
--   record type:   CREATE TABLE "<table>" ("<field>" <type>, ...);
-- with <type> INTEGER for int, id and string_ref fields, REAL for real, TEXT
-- for text and json; type_fields lists every field and its kind.
--
-- Results computed from the graph (reachability, distance from the GC
-- roots, immediate dominator, retained size) are in tables of their own,
-- node_analysis and dump_analysis (at the end of this file), so that the
-- tables above never change shape.  hprof2heapdb writes them unless given
-- --no-analysis; heapdb-analyze adds them to an existing database.

-- The writer sets a 64 KiB page (a property of the file) and builds the
-- database with the journal off, in one transaction, under a temporary name
-- that is renamed only when everything succeeded; a database that exists
-- under its final name is complete.
PRAGMA page_size = 65536;

-- ---------------------------------------------------------------------------
-- Core tables (the extensible heap-dump format)
-- ---------------------------------------------------------------------------

-- metadata: key/value pairs about the file, in the order written (rowid
-- order).  A key may repeat (hprof.warning).  The keys are listed in
-- schema/README.md; version_major (format version, "1") and heapfmt.schema
-- (this schema's version, "1") are always there, and heapfmt.complete is
-- written last: "true" when the whole input was converted, "false" when
-- --salvage kept what came before damage in the input (heapfmt.stopped_at,
-- heapfmt.damage say where and what).
CREATE TABLE metadata (
  key TEXT NOT NULL,          -- the metadata key, e.g. "version_major", "hprof.id_size"
  value TEXT NOT NULL         -- its value, always text (numbers in decimal; "" when unknown)
);

-- node_types: the declared node subtypes.  For HPROF: 1 class, 2 instance,
-- 3 object_array, 4 primitive_array (these numbers are part of the contract).
CREATE TABLE node_types (
  nodetypeid INTEGER PRIMARY KEY, -- the subtype number used in node.nodetypeid
  name TEXT NOT NULL UNIQUE,      -- subtype name: "class", "instance", "object_array", "primitive_array"
  table_name TEXT NOT NULL,       -- the table holding the subtype's own fields, e.g. "node_class"
  doc TEXT                        -- one-line description; NULL if the declaration had none
);

-- edge_types: the declared edge subtypes, and what their label holds.  For
-- HPROF: 1 instance_field, 2 static_field, 3 array_element, 4 superclass,
-- 5 class_loader, 6 signers, 7 protection_domain, 8 constant_pool.
CREATE TABLE edge_types (
  edgetypeid INTEGER PRIMARY KEY, -- the subtype number used in edge.edgetypeid
  name TEXT NOT NULL UNIQUE,      -- subtype name, e.g. "instance_field"
  label TEXT NOT NULL,            -- what edge.label holds: "string" (a strings.stringid: the field
                                  -- name), "index" (an array index or constant-pool index),
                                  -- "none" (always 0)
  doc TEXT                        -- one-line description; NULL if none
);

-- record_types: the declared extra record types (namespaced names, such as
-- "hprof.gc_root") and the table holding each.
CREATE TABLE record_types (
  name TEXT PRIMARY KEY,          -- record type name, "<namespace>.<name>", e.g. "hprof.gc_root"
  table_name TEXT NOT NULL UNIQUE,-- its table: the name with "." and "-" turned into "_"
  doc TEXT                        -- one-line description; NULL if none
);

-- type_fields: the fields of every declared node subtype and record type, in
-- declaration order (edge subtypes have none).  A subtype table has one
-- column per field after node_identifier and dump; a record table has
-- exactly these columns.
CREATE TABLE type_fields (
  type_class TEXT NOT NULL,       -- "node" or "record" ("edge" types declare no fields)
  type_name TEXT NOT NULL,        -- node_types.name or record_types.name
  position INTEGER NOT NULL,      -- 0-based position of the field in the declaration
  name TEXT NOT NULL,             -- field (and column) name
  kind TEXT NOT NULL,             -- "int" (signed 64-bit), "id" (unsigned 64-bit object id, 0 none),
                                  -- "string_ref" (strings.stringid, 0 none), "text" (UTF-8),
                                  -- "real" (double), "json" (JSON text)
  doc TEXT,                       -- description; may be empty, NULL if none
  PRIMARY KEY (type_class, type_name, position)
);

-- node: one row per heap object (class, instance, array) of each dump.  The
-- fields particular to a subtype are in the subtype's table, same key.
CREATE TABLE node (
  identifier INTEGER NOT NULL,    -- the object id from the dump (HotSpot: its address); unsigned
                                  -- 64-bit stored signed
  dump INTEGER NOT NULL,          -- heap dump index within the file, from 0
  nodetypeid INTEGER NOT NULL,    -- node_types.nodetypeid: 1 class, 2 instance, 3 object_array,
                                  -- 4 primitive_array
  class INTEGER NOT NULL,         -- id of the object's class (a node_class row of the same dump):
                                  -- for an instance its class, for an array its array class
                                  -- (byte[], java.lang.Object[]), for a class object
                                  -- java.lang.Class.  0: unknown (a primitive array whose array
                                  -- class has no LOAD CLASS; a class object when the dump does not
                                  -- name java.lang.Class)
  size INTEGER NOT NULL,          -- shallow size in bytes by the VM's layout model (header, fields or
                                  -- elements, alignment; schema/README.md "Shallow sizes"); never
                                  -- the dump's serialized length
  heap INTEGER NOT NULL,          -- Android heap id from the last HEAP DUMP INFO (65 'A' app,
                                  -- 73 'I' image, 90 'Z' zygote; see hprof_heap); 0 for HotSpot and
                                  -- Android's default heap
  PRIMARY KEY (identifier, dump)  -- a second object with the same id in one dump is dropped
                                  -- (counted in metadata heapdb.duplicate_nodes)
) WITHOUT ROWID;

-- edge: one row per non-null reference from one object to another, stored
-- in the order of its source object (the key), so an object's outgoing
-- references are read together.  dest may name an object that the dump does
-- not contain (no node row).
CREATE TABLE edge (
  source INTEGER NOT NULL,        -- id of the referring object (node.identifier)
  dump INTEGER NOT NULL,          -- heap dump index
  seq INTEGER NOT NULL,           -- the edge's position in the conversion's output, from 0 (unique in
                                  -- the table; it keeps an object's edges in dump order and makes the
                                  -- key unique)
  edgetypeid INTEGER NOT NULL,    -- edge_types.edgetypeid (1 instance_field ... 8 constant_pool)
  dest INTEGER NOT NULL,          -- id of the referenced object; never 0 (null references are not
                                  -- written)
  label INTEGER NOT NULL,         -- per edge_types.label: instance_field/static_field: strings.stringid
                                  -- of the field name (0 if the dump never named it);
                                  -- array_element: the index from 0; constant_pool: the constant-pool
                                  -- index; superclass, class_loader, signers, protection_domain: 0
  PRIMARY KEY (source, dump, seq)
) WITHOUT ROWID;

-- strings: text the other tables refer to by id: names from the dump (class,
-- field, method, thread names), the Java source form of class names, and the
-- decoded contents of java.lang.String objects.  Ids are heapfmt's own, from
-- 1, in file order (schema/README.md "String ids"); they are not the dump's
-- UTF8 ids.
CREATE TABLE strings (
  stringid INTEGER PRIMARY KEY,   -- string id, from 1 (0 is never used: it means "none" elsewhere)
  data TEXT NOT NULL              -- the text as UTF-8 (may be empty, may hold U+0000; invalid input
                                  -- becomes U+FFFD)
);

-- ---------------------------------------------------------------------------
-- Node subtype tables (HPROF)
--
-- A subtype table has a row only for a node that has at least one of the
-- subtype's fields: every class and array, but only those instances that
-- are java.lang.String objects with a text or, with --values, have their
-- fields decoded.  A node without a row has all those fields absent (use a
-- LEFT JOIN).
-- ---------------------------------------------------------------------------

-- node_class: a class object (CLASS DUMP).  Its node.class is java.lang.Class.
CREATE TABLE "node_class" (
  node_identifier INTEGER NOT NULL, -- node.identifier of the class object (the class id)
  dump INTEGER NOT NULL,            -- node.dump
  "name" INTEGER,                   -- strings.stringid of the class name as the dump writes it
                                    -- (java/lang/String, [I, [Ljava/lang/Object;; Android may write
                                    -- java.lang.String, int[]); NULL when no LOAD CLASS names the class;
                                    -- 0 when LOAD CLASS names a UTF8 id that was never written
  "java_name" INTEGER,              -- strings.stringid of the name in Java source form (java.lang.String,
                                    -- int[], java.lang.Object[]); the same id as name when both read
                                    -- the same; NULL when the class has no usable LOAD CLASS name
  "super" INTEGER,                  -- id of the superclass object; 0: none (java.lang.Object; the
                                    -- hprof agent also writes 0 for interfaces)
  "loader" INTEGER,                 -- id of the class loader object; 0 for the bootstrap loader
  "instance_size" INTEGER,          -- instance size as the CLASS DUMP writes it, in bytes.  HotSpot and
                                    -- the hprof agent: the bytes of an instance's fields as serialized
                                    -- in the dump, superclasses' included (references at the dump's id
                                    -- size), 0 for interfaces and array classes.  Android: the object
                                    -- size with its header, which is the shallow size of an instance
  "serial" INTEGER,                 -- class serial number from LOAD CLASS (hprof_load_class.serial);
                                    -- NULL when no LOAD CLASS names the class
  "static_count" INTEGER,           -- number of static fields in the CLASS DUMP (hprof_class_field rows
                                    -- with static = 1)
  "field_count" INTEGER,            -- number of instance fields this class declares (not counting its
                                    -- superclasses')
  "values" TEXT,                    -- with --values: JSON object of the primitive static fields by name,
                                    -- and primitive constant-pool entries as "#<index>" (see
                                    -- schema/README.md "Values"); NULL without --values
  PRIMARY KEY (node_identifier, dump)
) WITHOUT ROWID;

-- node_instance: an ordinary object (INSTANCE DUMP); rows only for Strings
-- with a text, and with --values for every instance whose fields were decoded.
CREATE TABLE "node_instance" (
  node_identifier INTEGER NOT NULL, -- node.identifier of the object
  dump INTEGER NOT NULL,            -- node.dump
  "text" INTEGER,                   -- java.lang.String objects only: strings.stringid of the decoded
                                    -- text (always a row of strings); NULL for other objects, for a
                                    -- String whose value is null or whose text could not be decoded
                                    -- (metadata heapfmt.unresolved_strings counts those), and when
                                    -- the fields could not be decoded
  "values" TEXT,                    -- with --values: JSON object of the primitive instance fields by
                                    -- name, over the whole class chain; NULL without --values or when
                                    -- the fields could not be decoded (see hprof.warning)
  PRIMARY KEY (node_identifier, dump)
) WITHOUT ROWID;

-- node_object_array: an array of references (OBJECT ARRAY DUMP).  Its
-- non-null elements are array_element edges.
CREATE TABLE "node_object_array" (
  node_identifier INTEGER NOT NULL, -- node.identifier of the array
  dump INTEGER NOT NULL,            -- node.dump
  "length" INTEGER,                 -- number of elements as dumped (nulls included)
  PRIMARY KEY (node_identifier, dump)
) WITHOUT ROWID;

-- node_primitive_array: an array of a primitive type (PRIMITIVE ARRAY DUMP,
-- or Android's PRIMITIVE ARRAY NODATA).
CREATE TABLE "node_primitive_array" (
  node_identifier INTEGER NOT NULL, -- node.identifier of the array
  dump INTEGER NOT NULL,            -- node.dump
  "length" INTEGER,                 -- number of elements as dumped
  "element_type" TEXT,              -- "boolean", "char", "float", "double", "byte", "short", "int" or "long"
  "nodata" INTEGER,                 -- 1 for an Android PRIMITIVE ARRAY NODATA record (0xC3): the length
                                    -- is known, the contents are not; NULL otherwise
  "values" TEXT,                    -- with --values: the elements as a JSON array (chars as UTF-16 code
                                    -- units, booleans as true/false); NULL without --values or for NODATA
  PRIMARY KEY (node_identifier, dump)
) WITHOUT ROWID;

-- ---------------------------------------------------------------------------
-- Record tables (HPROF).  Rowid tables in file order, no key.
-- ---------------------------------------------------------------------------

-- hprof_gc_root: a GC root sub-record: an object the VM keeps alive.
CREATE TABLE "hprof_gc_root" (
  "dump" INTEGER,          -- heap dump index
  "kind" TEXT,             -- UNKNOWN, JNI_GLOBAL, JNI_LOCAL, JAVA_FRAME, NATIVE_STACK, STICKY_CLASS,
                           -- THREAD_BLOCK, MONITOR_USED, THREAD_OBJECT; Android also INTERNED_STRING,
                           -- FINALIZING, DEBUGGER, REFERENCE_CLEANUP, VM_INTERNAL, JNI_MONITOR,
                           -- UNREACHABLE
  "object" INTEGER,        -- id of the object held; may name an object the dump does not contain;
                           -- the same object may be held by several roots
  "thread_serial" INTEGER, -- thread serial number (hprof_thread.serial) for JNI_LOCAL, JAVA_FRAME,
                           -- JNI_MONITOR, NATIVE_STACK, THREAD_BLOCK, THREAD_OBJECT; NULL otherwise
  "frame" INTEGER,         -- JNI_LOCAL, JAVA_FRAME, JNI_MONITOR: depth of the frame in the thread's
                           -- stack trace (0 = innermost; -1: none/unknown); NULL otherwise
  "trace_serial" INTEGER,  -- THREAD_OBJECT: the thread's stack-trace serial (hprof_stack_trace.serial);
                           -- NULL otherwise
  "jni_ref" INTEGER,       -- JNI_GLOBAL: the JNI global reference id; NULL otherwise
  "heap" INTEGER           -- Android heap id current when the root was written; 0 for HotSpot
);

-- hprof_heap: an Android heap (HEAP DUMP INFO, 0xFE), written when a heap id
-- first appears (and again if its name changes).  node.heap refers to it.
CREATE TABLE "hprof_heap" (
  "heap" INTEGER,          -- heap id: 65 app, 73 image, 90 zygote, 0 default (others as the VM writes)
  "name" INTEGER           -- strings.stringid of the heap name ("app", "image", "zygote"); 0 unknown
);

-- hprof_load_class: LOAD CLASS, which gives a class its serial number and name.
CREATE TABLE "hprof_load_class" (
  "serial" INTEGER,        -- class serial number (hprof_stack_frame.class_serial refers to it)
  "class" INTEGER,         -- id of the class object (node_class.node_identifier)
  "trace_serial" INTEGER,  -- stack-trace serial of the load (hprof_stack_trace.serial; often 0 or 1)
  "name" INTEGER,          -- strings.stringid of the class name as written; 0 if its UTF8 record is missing
  "java_name" INTEGER      -- strings.stringid of the name in Java source form (the same id as name when
                           -- equal); NULL if the name's UTF8 record is missing
);

-- hprof_unload_class: UNLOAD CLASS.
CREATE TABLE "hprof_unload_class" (
  "serial" INTEGER         -- class serial number of the unloaded class
);

-- hprof_stack_frame: FRAME, one method frame that stack traces refer to.
CREATE TABLE "hprof_stack_frame" (
  "frame" INTEGER,         -- frame id (hprof_stack_trace_frame.frame)
  "method" INTEGER,        -- strings.stringid of the method name; 0 unknown
  "signature" INTEGER,     -- strings.stringid of the method signature, e.g. "(I)V"; 0 unknown
  "source_file" INTEGER,   -- strings.stringid of the source file name; 0 unknown
  "class_serial" INTEGER,  -- class serial number (hprof_load_class.serial) of the method's class
  "line" INTEGER           -- line number; -1 unknown, -2 compiled method, -3 native method, 0 none (ART)
);

-- hprof_stack_trace: TRACE, a stack trace (its frames are in
-- hprof_stack_trace_frame).
CREATE TABLE "hprof_stack_trace" (
  "serial" INTEGER,        -- stack-trace serial number
  "thread_serial" INTEGER, -- serial number of the thread (hprof_thread.serial); 0 none
  "frames" INTEGER         -- number of frames
);

-- hprof_stack_trace_frame: one frame of a TRACE.
CREATE TABLE "hprof_stack_trace_frame" (
  "trace_serial" INTEGER,  -- hprof_stack_trace.serial
  "depth" INTEGER,         -- position in the trace, 0 = top (innermost) frame
  "frame" INTEGER          -- frame id (hprof_stack_frame.frame)
);

-- hprof_thread: START THREAD.
CREATE TABLE "hprof_thread" (
  "serial" INTEGER,        -- thread serial number
  "object" INTEGER,        -- id of the java.lang.Thread object
  "trace_serial" INTEGER,  -- stack-trace serial (hprof_stack_trace.serial)
  "name" INTEGER,          -- strings.stringid of the thread name; 0 unknown
  "group" INTEGER,         -- strings.stringid of the thread group name; 0 unknown
  "parent_group" INTEGER   -- strings.stringid of the parent thread group name; 0 unknown
);

-- hprof_thread_end: END THREAD.
CREATE TABLE "hprof_thread_end" (
  "serial" INTEGER         -- thread serial number
);

-- hprof_alloc_site: one site of an ALLOC SITES record (hprof agent).  The
-- record's own totals are metadata hprof.alloc_sites.*.
CREATE TABLE "hprof_alloc_site" (
  "flags" INTEGER,               -- the record's flags: 1 incremental/complete, 2 sorted by allocation/
                                 -- by live, 4 forced GC (bit set = the first meaning)
  "array_type" INTEGER,          -- 0 ordinary object, else the HPROF basic type of the array elements
                                 -- (2 object, 4 boolean, 5 char, 6 float, 7 double, 8 byte, 9 short,
                                 -- 10 int, 11 long)
  "class_serial" INTEGER,        -- class serial number (hprof_load_class.serial)
  "trace_serial" INTEGER,        -- stack-trace serial of the allocation site
  "bytes_alive" INTEGER,         -- live bytes allocated here
  "instances_alive" INTEGER,     -- live instances allocated here
  "bytes_allocated" INTEGER,     -- bytes ever allocated here
  "instances_allocated" INTEGER  -- instances ever allocated here
);

-- hprof_cpu_sample: one trace of a CPU SAMPLES record (hprof agent).  The
-- record's total is metadata hprof.cpu_samples.total.
CREATE TABLE "hprof_cpu_sample" (
  "trace_serial" INTEGER,  -- stack-trace serial
  "count" INTEGER          -- number of samples in that trace
);

-- hprof_class_field: a field declared by a class, from its CLASS DUMP;
-- written once per class id (the first dump that holds the class; again when
-- an UNLOAD CLASS or a LOAD CLASS of another name gives the id to another class).
CREATE TABLE "hprof_class_field" (
  "class" INTEGER,         -- id of the declaring class (node_class.node_identifier)
  "position" INTEGER,      -- 0-based position in the CLASS DUMP's list; statics and instance fields
                           -- are counted apart
  "static" INTEGER,        -- 1 static field, 0 instance field
  "name" INTEGER,          -- strings.stringid of the field name; 0 if the dump never named it
  "type" TEXT              -- "object", "boolean", "char", "float", "double", "byte", "short", "int",
                           -- "long"
);

-- ---------------------------------------------------------------------------
-- Analysis tables: written by hprof2heapdb after the load (not with
-- --no-analysis) or added later by heapdb-analyze, which replaces them.  Each
-- heap dump is analysed on its own.  The graph analysed (schema/README.md
-- "Analysis"): the objects of node; as references, every edge between two
-- of them plus each object's reference to its class (node.class), except the
-- field "referent" of an instance of java.lang.ref.Reference or of a
-- subclass (WeakReference, SoftReference, PhantomReference, FinalReference),
-- which the collector does not treat as a strong reference; above the GC
-- roots (hprof_gc_root.object) a virtual super-root.
-- ---------------------------------------------------------------------------

-- node_analysis: one row per node (same key): reachability, distance from
-- the roots, immediate dominator and retained size.
CREATE TABLE node_analysis (
  identifier INTEGER NOT NULL,    -- node.identifier
  dump INTEGER NOT NULL,          -- node.dump
  reachable INTEGER NOT NULL,     -- 1: reachable from a GC root through strong references;
                                  -- 2: only through a Reference.referent (softly, weakly,
                                  -- phantom or finalizer reachable); 0: unreachable (garbage the
                                  -- dump still held).  distance, dominator and retained_size are
                                  -- NULL unless reachable = 1
  distance INTEGER,               -- references on a shortest strong path from a GC root (0: the
                                  -- object is a root)
  dominator INTEGER,              -- id of the immediate dominator: the object closest to this one
                                  -- that lies on every strong path from the roots to it; 0: only
                                  -- the virtual super-root (GC roots, and objects reachable from
                                  -- several roots through no common object)
  retained_size INTEGER,          -- bytes freed if this object were: its shallow size (node.size)
                                  -- plus those of all the objects it dominates
  PRIMARY KEY (identifier, dump)
) WITHOUT ROWID;

-- dump_analysis: one row per analysed heap dump: what the analysis saw.
CREATE TABLE dump_analysis (
  dump INTEGER PRIMARY KEY,       -- heap dump index
  nodes INTEGER NOT NULL,         -- objects (node rows) of the dump
  roots INTEGER NOT NULL,         -- distinct objects held by GC roots (present in the dump)
  missing_roots INTEGER NOT NULL, -- hprof_gc_root rows naming an object not in the dump (ignored)
  edges INTEGER NOT NULL,         -- strong references followed, class references included
  class_edges INTEGER NOT NULL,   -- of which object -> its class; those to a class that is itself
                                  -- a GC root are not counted (they change nothing)
  referent_edges INTEGER NOT NULL,-- Reference.referent edges, not followed as strong
  dangling_edges INTEGER NOT NULL,-- edges from or to an object not in the dump (ignored)
  reachable INTEGER NOT NULL,     -- objects with node_analysis.reachable = 1
  reachable_bytes INTEGER NOT NULL, -- their shallow bytes: the retained size of the super-root
  weakly_reachable INTEGER NOT NULL, -- objects with reachable = 2
  weakly_reachable_bytes INTEGER NOT NULL, -- their shallow bytes
  unreachable INTEGER NOT NULL,   -- objects with reachable = 0
  unreachable_bytes INTEGER NOT NULL, -- their shallow bytes
  max_distance INTEGER            -- the largest distance; NULL when nothing is reachable
);

-- ---------------------------------------------------------------------------
-- Indexes, filled after the bulk load (not at all with --no-index); the
-- writer fills edge_by_dest, node_by_class and node_analysis_by_dominator
-- from keys it sorted itself (libheapfmt/src/presorted.c), not with CREATE
-- INDEX, when the SQLite library lets it: the same entries either way (the
-- pages less full than CREATE INDEX leaves them).
-- ---------------------------------------------------------------------------

-- (An object's outgoing references need no index: edge is keyed by source.)
CREATE INDEX edge_by_dest ON edge (dest, dump);         -- referrers of an object
CREATE INDEX node_by_class ON node (class, nodetypeid); -- the objects of a class
-- One index per field declared "indexed":
CREATE INDEX "hprof_gc_root_object" ON "hprof_gc_root" ("object");
CREATE INDEX "hprof_load_class_serial" ON "hprof_load_class" ("serial");
CREATE INDEX "hprof_stack_frame_frame" ON "hprof_stack_frame" ("frame");
CREATE INDEX "hprof_stack_trace_serial" ON "hprof_stack_trace" ("serial");
CREATE INDEX "hprof_stack_trace_frame_trace_serial" ON "hprof_stack_trace_frame" ("trace_serial");
CREATE INDEX "hprof_thread_serial" ON "hprof_thread" ("serial");
CREATE INDEX "hprof_class_field_class" ON "hprof_class_field" ("class");
-- The analysis's (not with --no-analysis either):
CREATE INDEX node_analysis_by_dominator ON node_analysis (dominator, dump); -- what an object dominates
-- No index on retained_size: building it cost about as much as the rest of the analysis
-- (7 s for 10 M objects), and the largest retained sizes are one scan of node_analysis
-- (top_retained.sql: under a second for 10 M objects).

-- Query-planner statistics (this creates SQLite's own table sqlite_stat1).
-- The writer runs it with or without --no-index, after
-- "PRAGMA analysis_limit = 1000", which samples each index instead of reading
-- all of it, table by table but for strings: a table without an index, whose
-- row count ANALYZE takes by reading every page; the writer writes the row
-- ANALYZE would ('strings', NULL, its number of rows) from its own count.
-- (Past 64 tables, one ANALYZE of them all, strings included: each ANALYZE
-- statement reloads sqlite_stat1.)
ANALYZE;
