-- heapdb-ddm.sql: the tables alloc2heapdb and hpsg2heapdb add to the heap
-- database (schema/heapdb.sql holds the tables every heap database has, and
-- those of HPROF).  One table per record type the DDM readers declare
-- (ddm.*, see schema/README.md "DDM record types"); every column is a field
-- of the type, in declaration order.  Ids in these tables (report, stack,
-- frame, dump, segment, chunk) are numbers the reader assigns in input order
-- (each column says where they start); class, class_descriptor, method, file
-- and name columns are strings.stringid.
--
-- alloc2heapdb writes the ddm_alloc_report, ddm_allocation, ddm_stack,
-- ddm_stack_element and ddm_stack_frame tables; hpsg2heapdb writes them all
-- (a DDM stream may carry allocation reports in REAL chunks).
--
-- Load it after heapdb.sql's core tables:
--   sqlite3 x.db < schema/heapdb.sql && sqlite3 x.db < schema/heapdb-ddm.sql

-- ddm_alloc_report (record type ddm.alloc_report): an allocation-tracker report (REAL reply payload, Android Studio .alloc file).
CREATE TABLE "ddm_alloc_report" (
  "report" INTEGER,              -- report number in the input, from 0
  "chunk" INTEGER,               -- index of the REAL chunk it came in (ddm.chunk); absent for a bare .alloc file
  "offset" INTEGER,              -- input offset of the report's first byte; in a ZLIB chunk, the ZLIB chunk header's
  "header_length" INTEGER,       -- message header length as written (15)
  "entry_header_length" INTEGER, -- entry header length as written (9)
  "frame_length" INTEGER,        -- stack frame length as written (8)
  "entries" INTEGER,             -- number of entries found (written as ddm.allocation)
  "header_entries" INTEGER,      -- the u2 entry count as written
  "count_overflow" INTEGER,      -- 1 when the u2 count had wrapped (Dalvik 4.4 with 65,536 records writes 0) and the entries were counted by walking to the string tables
  "string_table_offset" INTEGER, -- offset of the string tables from the report's first byte
  "class_names" INTEGER,         -- size of the class-name table
  "method_names" INTEGER,        -- size of the method-name table
  "file_names" INTEGER,          -- size of the source-file table
  "order" TEXT,                  -- entry order taken: newest-first (ART 7+) or oldest-first (Dalvik, ART 5-6)
  "order_basis" TEXT,            -- why: option, HELO VM version, thread-id style, or default
  "thread_ids" TEXT,             -- what the u2 thread ids are, following the order decision: vm (Dalvik/ART<=6: THCR ids) or linux-tid-16 (ART 7+: Linux tid mod 65536)
  "max_depth" INTEGER,           -- deepest stack in the report
  "trailing_bytes" INTEGER       -- bytes after the third string table (ignored)
);

-- ddm_allocation (record type ddm.allocation): one entry of an allocation report.
CREATE TABLE "ddm_allocation" (
  "report" INTEGER,           -- report number (ddm.alloc_report)
  "position" INTEGER,         -- position of the entry in the report, from 0
  "alloc_number" INTEGER,     -- ddmlib's allocation number: entries - position (the first entry gets the highest)
  "sequence" INTEGER,         -- chronological rank in the report: 1 = oldest allocation, entries = newest (follows the report's order)
  "class" INTEGER,            -- allocated class, display form as ddmlib shows it (java.lang.String, int[])
  "class_descriptor" INTEGER, -- allocated class as the VM wrote it (Ljava/lang/String;, [I)
  "size" INTEGER,             -- allocation size in bytes (u4; Dalvik: requested size, ART: object size)
  "thread" INTEGER,           -- u2 thread id, unsigned (see ddm.alloc_report.thread_ids)
  "stack" INTEGER,            -- stack id (ddm.stack; equal stacks share one id, the empty stack too)
  "depth" INTEGER,            -- number of frames
  "top_frame" INTEGER         -- innermost frame id (ddm.stack_frame); absent when depth is 0
);

-- ddm_stack (record type ddm.stack): a distinct allocation stack.
CREATE TABLE "ddm_stack" (
  "stack" INTEGER,     -- stack id, from 1
  "depth" INTEGER,     -- number of frames
  "top_frame" INTEGER  -- innermost frame id; absent for the empty stack
);

-- ddm_stack_element (record type ddm.stack_element): links a stack to its frames by depth.
CREATE TABLE "ddm_stack_element" (
  "stack" INTEGER, -- stack id
  "depth" INTEGER, -- position, 0 = innermost (the allocating method)
  "frame" INTEGER  -- frame id (ddm.stack_frame)
);

-- ddm_stack_frame (record type ddm.stack_frame): a distinct stack frame of allocation stacks (class, method, file, line).
CREATE TABLE "ddm_stack_frame" (
  "frame" INTEGER,            -- frame id, from 1
  "class" INTEGER,            -- declaring class, display form as ddmlib shows it
  "class_descriptor" INTEGER, -- declaring class as the VM wrote it
  "method" INTEGER,           -- method name as written (no signature)
  "file" INTEGER,             -- source file name as written (empty string: unknown)
  "line" INTEGER,             -- line number as written, signed 16 bits: -1 no line information, -2 native method, below -2 ART's truncation of a line above 32767
  "source_line" INTEGER,      -- the source line: line when >= 0, line + 65536 when below -2; absent for -1 and -2
  "native" INTEGER            -- 1 for a native method (line -2)
);

-- ddm_heap_info (record type ddm.heap_info): heap summary of one HPIF chunk, per heap.
CREATE TABLE "ddm_heap_info" (
  "chunk" INTEGER,             -- index of the HPIF chunk (ddm.chunk)
  "heap" INTEGER,              -- heap id (always 1 as written)
  "timestamp_ms" INTEGER,      -- milliseconds since the Unix epoch
  "timestamp" TEXT,            -- the same as ISO-8601 UTC, with the milliseconds unless 0
  "reason" INTEGER,            -- the 'when' that fired: 1 now, 2 next GC, 3 every GC
  "max_bytes" INTEGER,         -- maximum heap size (-Xmx)
  "footprint_bytes" INTEGER,   -- current heap size
  "allocated_bytes" INTEGER,   -- bytes allocated
  "allocated_objects" INTEGER  -- objects allocated
);

-- ddm_heap_dump (record type ddm.heap_dump): one heap picture: HPST, HPSG/HPSO chunks, HPEN (or NHST, NHSG, NHEN).
CREATE TABLE "ddm_heap_dump" (
  "dump" INTEGER,               -- series number, from 0
  "heap" INTEGER,               -- heap id from HPST/NHST
  "native" INTEGER,             -- 1 for a native heap (NHST..NHEN), 0 for the VM heap (HPST..HPEN)
  "start_chunk" INTEGER,        -- index of the HPST/NHST chunk; absent when the series had none (a capture started late)
  "end_chunk" INTEGER,          -- index of the HPEN/NHEN chunk; absent when it never came (a capture stopped early)
  "segments" INTEGER,           -- number of HPSG/HPSO/NHSG chunks
  "runs" INTEGER,               -- number of runs (ddm.heap_run)
  "used_bytes" INTEGER,         -- bytes in runs that are not free
  "free_bytes" INTEGER,         -- bytes in free runs
  "largest_free_bytes" INTEGER, -- the largest free run
  "complete" INTEGER            -- 1 when the series had its start and its end
);

-- ddm_heap_segment (record type ddm.heap_segment): one HPSG, HPSO or NHSG chunk.
CREATE TABLE "ddm_heap_segment" (
  "segment" INTEGER,         -- segment number, from 0
  "dump" INTEGER,            -- series (ddm.heap_dump)
  "chunk" INTEGER,           -- index of the chunk (ddm.chunk)
  "type" TEXT,               -- HPSG (merged runs), HPSO (runs end at objects) or NHSG (native)
  "heap" INTEGER,            -- heap id
  "unit_size" INTEGER,       -- allocation unit in bytes (8)
  "address" INTEGER,         -- segment start address as written (u4)
  "offset" INTEGER,          -- piece offset as written, in allocation units (0 from every producer)
  "units" INTEGER,           -- length of the piece in allocation units as written
  "pairs" INTEGER,           -- number of (state, length) pairs
  "zero_unit_pairs" INTEGER, -- free 0xFF pairs taken as zero units (producer bug, ddm-stream.md 4.7)
  "start" INTEGER,           -- address of the first run: address + offset * unit_size
  "end" INTEGER              -- address after the last run
);

-- ddm_heap_run (record type ddm.heap_run): a run of allocation units with one state; partial pairs are merged into the run they continue.
CREATE TABLE "ddm_heap_run" (
  "dump" INTEGER,            -- series (ddm.heap_dump)
  "segment" INTEGER,         -- segment (ddm.heap_segment)
  "heap" INTEGER,            -- heap id
  "address" INTEGER,         -- start address (64-bit arithmetic)
  "length" INTEGER,          -- length in bytes (units * unit_size)
  "units" INTEGER,           -- length in allocation units
  "solidity" INTEGER,        -- 0 free, 1 hard, 2 soft, 3 weak, 4 phantom, 5 pending finalization, 6 unreachable
  "kind" INTEGER,            -- 0 object, 1 class object, 2 array of 1-byte, 3 of 2-byte, 4 of 4-byte (and references), 5 of 8-byte elements, 6 unknown, 7 native
  "object_boundary" INTEGER, -- 1: the run is exactly one object or one free gap (HPSO); 0: not known (HPSG, NHSG)
  "pairs" INTEGER            -- pairs the run was written as (a run longer than 256 units continues over partial pairs)
);

-- ddm_thread (record type ddm.thread): a thread event: THCR, THNM, THDE, or one entry of THST.
CREATE TABLE "ddm_thread" (
  "chunk" INTEGER,  -- index of the chunk (ddm.chunk)
  "event" TEXT,     -- create (THCR), rename (THNM), death (THDE) or status (one THST entry)
  "thread" INTEGER, -- VM thread id
  "name" INTEGER,   -- thread name (create, rename)
  "tid" INTEGER,    -- Linux thread id (status)
  "state" INTEGER,  -- thread state (status): 1 running, 2 sleeping, 3 monitor, 4 waiting, 5 initializing, 6 starting, 7 native, 8 vmwait ...
  "utime" INTEGER,  -- user time in clock ticks (status)
  "stime" INTEGER,  -- system time in clock ticks (status)
  "daemon" INTEGER  -- 1 for a daemon thread (status)
);

-- ddm_chunk (record type ddm.chunk): one DDM chunk of the stream, whatever its type.
CREATE TABLE "ddm_chunk" (
  "chunk" INTEGER,     -- chunk number, from 0, in input order
  "offset" INTEGER,    -- input offset of the chunk header
  "type" TEXT,         -- the four-character type (after inflating a ZLIB chunk: the inner type)
  "length" INTEGER,    -- payload length (after inflating a ZLIB chunk: the inflated length)
  "packet" INTEGER,    -- JDWP packet number, from 0 (absent outside JDWP)
  "packet_id" INTEGER, -- JDWP packet id
  "reply" INTEGER,     -- 1 in a JDWP reply packet, 0 in a command packet
  "zlib" INTEGER,      -- 1 when it arrived as a ZLIB chunk
  "status" TEXT        -- decoded, request (host to VM), empty, skipped (known, not decoded) or unknown
);

-- Indexes: the record ids, and the columns the queries in schema/queries join on.
CREATE INDEX "ddm_alloc_report_report" ON "ddm_alloc_report" ("report");
CREATE INDEX "ddm_allocation_class" ON "ddm_allocation" ("class");
CREATE INDEX "ddm_allocation_thread" ON "ddm_allocation" ("thread");
CREATE INDEX "ddm_allocation_stack" ON "ddm_allocation" ("stack");
CREATE INDEX "ddm_allocation_top_frame" ON "ddm_allocation" ("top_frame");
CREATE INDEX "ddm_stack_stack" ON "ddm_stack" ("stack");
CREATE INDEX "ddm_stack_element_stack" ON "ddm_stack_element" ("stack");
CREATE INDEX "ddm_stack_frame_frame" ON "ddm_stack_frame" ("frame");
CREATE INDEX "ddm_heap_dump_dump" ON "ddm_heap_dump" ("dump");
CREATE INDEX "ddm_heap_segment_segment" ON "ddm_heap_segment" ("segment");
CREATE INDEX "ddm_heap_run_dump" ON "ddm_heap_run" ("dump");
CREATE INDEX "ddm_thread_thread" ON "ddm_thread" ("thread");
CREATE INDEX "ddm_chunk_chunk" ON "ddm_chunk" ("chunk");
