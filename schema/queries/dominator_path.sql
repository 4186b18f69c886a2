-- dominator_path.sql: what keeps object @id alive: its chain of dominators,
-- from the object right under the virtual super-root (above the GC roots)
-- down to @id itself (node_analysis, see schema/README.md "Analysis").
--
-- Each row's object lies on every strong path from the GC roots to the rows
-- below it: freeing it would free them, and its retained size includes
-- theirs.  The first row is a GC root, or an object that several roots reach
-- through no common object.  Consecutive rows need not reference each other:
-- path_from_root.sql gives a shortest chain of references.  An object that
-- is not strongly reachable gets one row, with reachable 2 (held only
-- through a Reference.referent) or 0, and no retained size.
--
-- Columns: depth (0 = the top), object, kind, class (Java source form; for
-- a class object, the class it describes), shallow_bytes, retained_bytes,
-- distance (references from the nearest GC root), root_kind (the GC root
-- kinds that hold the object, if any), reachable.
--
-- Run:
--   sqlite3 -header -column -cmd ".parameter set @id 4028629016" out.db < schema/queries/dominator_path.sql
-- Parameters: @id, the object id (decimal or 0x...); @dump (optional), the
-- heap dump (default: the first dump that holds @id).  Needs the analysis.
WITH RECURSIVE
  target(id, dump) AS (
    SELECT @id, coalesce(@dump, (SELECT min(dump) FROM node_analysis WHERE identifier = @id), 0)),
  up(step, object) AS (
    SELECT 0, a.identifier FROM node_analysis AS a, target AS t
    WHERE a.identifier = t.id AND a.dump = t.dump
    UNION ALL
    SELECT u.step + 1, a.dominator
    FROM up AS u, target AS t
    JOIN node_analysis AS a ON a.identifier = u.object AND a.dump = t.dump
    WHERE a.dominator <> 0)
SELECT count(*) OVER () - 1 - u.step AS depth,
       u.object AS object,
       nt.name AS kind,
       coalesce(
           CASE WHEN n.nodetypeid = 1 THEN own.data END,
           cls.data,
           CASE WHEN n.nodetypeid = 1 THEN 'java.lang.Class' END,
           CASE WHEN n.nodetypeid = 4 THEN pa.element_type || '[]' END,
           printf('<class 0x%x>', n.class)) AS class,
       n.size AS shallow_bytes,
       a.retained_size AS retained_bytes,
       a.distance AS distance,
       (SELECT group_concat(kind, ',') FROM
           (SELECT DISTINCT r.kind FROM hprof_gc_root AS r
            WHERE r.object = u.object AND r.dump = t.dump ORDER BY r.kind)) AS root_kind,
       a.reachable AS reachable
FROM up AS u
JOIN target AS t
JOIN node_analysis AS a ON a.identifier = u.object AND a.dump = t.dump
JOIN node AS n ON n.identifier = u.object AND n.dump = t.dump
JOIN node_types AS nt ON nt.nodetypeid = n.nodetypeid
LEFT JOIN node_class AS nc ON nc.node_identifier = n.class AND nc.dump = n.dump
LEFT JOIN strings AS cls ON cls.stringid = nc.java_name
LEFT JOIN node_class AS oc ON n.nodetypeid = 1 AND oc.node_identifier = n.identifier AND oc.dump = n.dump
LEFT JOIN strings AS own ON own.stringid = oc.java_name
LEFT JOIN node_primitive_array AS pa ON n.nodetypeid = 4 AND pa.node_identifier = n.identifier AND pa.dump = n.dump
ORDER BY depth;
