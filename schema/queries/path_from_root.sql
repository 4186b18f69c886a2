-- path_from_root.sql: why is object @id alive?  A shortest chain of
-- references from a GC root to it, one row per object on the chain.
--
-- The search walks the edges backwards from @id, breadth first, one level of
-- referrers at a time, and stops at the first level
-- that holds an object named by a GC root (hprof_gc_root) or after @max_depth
-- levels (default 40).  One shortest chain is printed.  No row means that no
-- root reaches @id within @max_depth references (the object is unreachable, or
-- deeper: a long linked list needs a larger @max_depth), or that @id is not in
-- the dump.
--
-- Columns: step (0 = the object held by the root), object, kind (class,
-- instance, object_array, primitive_array), class (Java source form; for a
-- class object, the class it describes), root_kind (step 0 only: the GC root
-- kinds that hold it, e.g. JAVA_FRAME, STICKY_CLASS), edge_type and label: the
-- reference from this object to the next row's object (field name, "[index]",
-- "#index"); NULL on the last row, which is @id itself.
--
-- Run:
--   sqlite3 -header -column -cmd ".parameter set @id 4028629016" out.db < schema/queries/path_from_root.sql
--   sqlite3 -header -column -cmd ".parameter set @id 4028629016" -cmd ".parameter set @max_depth 100000" \
--     out.db < schema/queries/path_from_root.sql
-- Parameters: @id, the object id; @max_depth (optional, default 40); @dump
-- (optional), the heap dump (default: the first dump that holds @id).
WITH RECURSIVE
  target(id, dump, max_depth) AS (
    SELECT @id,
           coalesce(@dump, (SELECT min(dump) FROM node WHERE identifier = @id), 0),
           coalesce(@max_depth, 40)),
  roots(object) AS (
    SELECT DISTINCT r.object FROM hprof_gc_root AS r, target AS t
    WHERE r.dump = t.dump AND r.kind IS NOT 'UNREACHABLE'),  -- Dalvik's mark of garbage
  -- levels: one row per breadth-first level, as JSON arrays of ids: frontier =
  -- the referrers of the level above, less the objects of the two levels
  -- above (enough to stop a walk going back and forth; an object met again
  -- further up costs time, not correctness: the first level that holds a root
  -- gives a shortest chain).  The walk ends at the first level holding a root.
  levels(depth, frontier, previous) AS (
    SELECT 0, json_array(t.id), json_array() FROM target AS t
    UNION ALL
    SELECT l.depth + 1,
           (SELECT json_group_array(DISTINCT e.source)
            FROM json_each(l.frontier) AS f
            JOIN edge AS e ON e.dest = f.value AND e.dump = t.dump
            WHERE e.source NOT IN (SELECT value FROM json_each(l.frontier))
              AND e.source NOT IN (SELECT value FROM json_each(l.previous))),
           l.frontier
    FROM levels AS l, target AS t
    WHERE l.depth < t.max_depth
      AND json_array_length(l.frontier) > 0
      AND NOT EXISTS (SELECT 1 FROM json_each(l.frontier) AS f WHERE f.value IN roots)),
  found(depth, root) AS (
    SELECT l.depth, (SELECT min(f.value) FROM json_each(l.frontier) AS f WHERE f.value IN roots)
    FROM levels AS l
    WHERE EXISTS (SELECT 1 FROM json_each(l.frontier) AS f WHERE f.value IN roots)
    ORDER BY l.depth LIMIT 1),
  -- From the root forward: at each step, the reference (the seq of an edge
  -- of this object) to an object of the level below, one reference closer to
  -- @id.
  chain(step, node, depth, seq) AS (
    SELECT 0, f.root, f.depth,
           (SELECT e.seq FROM edge AS e, target AS t
            WHERE e.source = f.root AND e.dump = t.dump
              AND e.dest IN (SELECT value FROM json_each(
                  (SELECT frontier FROM levels WHERE depth = f.depth - 1)))
            ORDER BY e.edgetypeid, e.label, e.dest LIMIT 1)
    FROM found AS f
    UNION ALL
    SELECT c.step + 1, x.dest, c.depth - 1,
           (SELECT e.seq FROM edge AS e
            WHERE e.source = x.dest AND e.dump = t.dump
              AND e.dest IN (SELECT value FROM json_each(
                  (SELECT frontier FROM levels WHERE depth = c.depth - 2)))
            ORDER BY e.edgetypeid, e.label, e.dest LIMIT 1)
    FROM chain AS c
    JOIN target AS t
    JOIN edge AS x ON x.source = c.node AND x.dump = t.dump AND x.seq = c.seq
    WHERE c.depth > 0)
SELECT c.step AS step,
       c.node AS object,
       coalesce(nt.name, '<not dumped>') AS kind,
       coalesce(
           CASE WHEN n.nodetypeid = 1 THEN own.data END,
           cls.data,
           CASE WHEN n.nodetypeid = 1 THEN 'java.lang.Class' END,
           CASE WHEN n.nodetypeid = 4 THEN pa.element_type || '[]' END,
           CASE WHEN n.identifier IS NOT NULL THEN printf('<class 0x%x>', n.class) END) AS class,
       CASE WHEN c.step = 0 THEN
           (SELECT group_concat(kind, ',') FROM
               (SELECT DISTINCT r.kind FROM hprof_gc_root AS r
                WHERE r.object = c.node AND r.dump = t.dump ORDER BY r.kind))
       END AS root_kind,
       et.name AS edge_type,
       CASE et.label
           WHEN 'string' THEN coalesce(lbl.data, printf('<string %d>', e.label))
           WHEN 'index' THEN
               CASE et.name WHEN 'constant_pool' THEN '#' || e.label ELSE '[' || e.label || ']' END
       END AS label
FROM chain AS c
JOIN target AS t
LEFT JOIN edge AS e ON e.source = c.node AND e.dump = t.dump AND e.seq = c.seq
LEFT JOIN edge_types AS et ON et.edgetypeid = e.edgetypeid
LEFT JOIN strings AS lbl ON et.label = 'string' AND lbl.stringid = e.label
LEFT JOIN node AS n ON n.identifier = c.node AND n.dump = t.dump
LEFT JOIN node_types AS nt ON nt.nodetypeid = n.nodetypeid
LEFT JOIN node_class AS nc ON nc.node_identifier = n.class AND nc.dump = n.dump
LEFT JOIN strings AS cls ON cls.stringid = nc.java_name
LEFT JOIN node_class AS oc ON n.nodetypeid = 1 AND oc.node_identifier = n.identifier AND oc.dump = n.dump
LEFT JOIN strings AS own ON own.stringid = oc.java_name
LEFT JOIN node_primitive_array AS pa ON n.nodetypeid = 4 AND pa.node_identifier = n.identifier AND pa.dump = n.dump
ORDER BY c.step;
