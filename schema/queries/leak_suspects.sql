-- leak_suspects.sql: objects that keep a large share of the heap alive, with
-- the chain of dominators that holds them (node_analysis, see
-- schema/README.md "Analysis").
--
-- A suspect retains at least @share of the dump's strongly reachable bytes
-- (dump_analysis.reachable_bytes) and dominates no other object that does:
-- it is where the memory accumulates (the table array of a huge HashMap
-- rather than the map, the map rather than the class whose static field holds
-- it).  path lists its dominators from the top (right under the GC roots)
-- down to it, as class@id (retained bytes): what keeps it alive and where to
-- cut.  dominator_path.sql gives the same chain as rows, path_from_root.sql a
-- shortest chain of references.
--
-- Columns: object, class, shallow_bytes, retained_bytes, percent, distance,
-- path, dump.
--
-- Run:
--   sqlite3 -header -column out.db < schema/queries/leak_suspects.sql
--   sqlite3 -header -column -cmd ".parameter set @share 0.05" out.db < schema/queries/leak_suspects.sql
-- Parameters (optional): @share, the smallest share of the heap a suspect
-- retains, from 0 to 1 (default 0.1); @dump, the heap dump (default: every
-- dump).  Needs the analysis.
WITH RECURSIVE
  threshold(dump, bytes, reachable_bytes) AS (
    SELECT dump, coalesce(@share, 0.1) * reachable_bytes, reachable_bytes FROM dump_analysis
    WHERE (@dump IS NULL OR dump = @dump) AND reachable_bytes > 0),
  big(identifier, dump, dominator, retained_size) AS (
    SELECT a.identifier, a.dump, a.dominator, a.retained_size
    FROM node_analysis AS a JOIN threshold AS t ON t.dump = a.dump
    WHERE a.retained_size >= t.bytes),
  suspect(identifier, dump, retained_size) AS (
    SELECT b.identifier, b.dump, b.retained_size FROM big AS b
    WHERE NOT EXISTS (SELECT 1 FROM big AS c WHERE c.dominator = b.identifier AND c.dump = b.dump)),
  up(suspect, dump, step, object) AS (
    SELECT identifier, dump, 0, identifier FROM suspect
    UNION ALL
    SELECT u.suspect, u.dump, u.step + 1, a.dominator
    FROM up AS u JOIN node_analysis AS a ON a.identifier = u.object AND a.dump = u.dump
    WHERE a.dominator <> 0),
  named(object, dump, class) AS (
    SELECT n.identifier, n.dump,
           coalesce(
               CASE WHEN n.nodetypeid = 1 THEN own.data END,
               cls.data,
               CASE WHEN n.nodetypeid = 1 THEN 'java.lang.Class' END,
               CASE WHEN n.nodetypeid = 4 THEN pa.element_type || '[]' END,
               printf('<class 0x%x>', n.class))
    FROM (SELECT DISTINCT object, dump FROM up) AS o
    JOIN node AS n ON n.identifier = o.object AND n.dump = o.dump
    LEFT JOIN node_class AS nc ON nc.node_identifier = n.class AND nc.dump = n.dump
    LEFT JOIN strings AS cls ON cls.stringid = nc.java_name
    LEFT JOIN node_class AS oc ON n.nodetypeid = 1 AND oc.node_identifier = n.identifier AND oc.dump = n.dump
    LEFT JOIN strings AS own ON own.stringid = oc.java_name
    LEFT JOIN node_primitive_array AS pa ON n.nodetypeid = 4 AND pa.node_identifier = n.identifier AND pa.dump = n.dump)
SELECT s.identifier AS object,
       nm.class AS class,
       n.size AS shallow_bytes,
       s.retained_size AS retained_bytes,
       round(100.0 * s.retained_size / t.reachable_bytes, 2) AS percent,
       a.distance AS distance,
       (SELECT group_concat(x.label, ' > ') FROM
           (SELECT printf('%s@0x%x (%d)', pn.class, u.object, pa.retained_size) AS label
            FROM up AS u
            JOIN named AS pn ON pn.object = u.object AND pn.dump = u.dump
            JOIN node_analysis AS pa ON pa.identifier = u.object AND pa.dump = u.dump
            WHERE u.suspect = s.identifier AND u.dump = s.dump
            ORDER BY u.step DESC) AS x) AS path,
       s.dump AS dump
FROM suspect AS s
JOIN threshold AS t ON t.dump = s.dump
JOIN node AS n ON n.identifier = s.identifier AND n.dump = s.dump
JOIN node_analysis AS a ON a.identifier = s.identifier AND a.dump = s.dump
JOIN named AS nm ON nm.object = s.identifier AND nm.dump = s.dump
ORDER BY s.retained_size DESC, s.identifier;
