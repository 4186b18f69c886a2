-- biggest_arrays.sql: the largest arrays in the heap by shallow size (header
-- and elements, see schema/README.md), with their class and length.
--
-- Columns: object (id), class (Java source form: byte[], java.lang.Object[]),
-- length (elements), bytes (shallow size), dump.
--
-- Run:
--   sqlite3 -header -column out.db < schema/queries/biggest_arrays.sql
--   sqlite3 -header -column -cmd ".parameter set @limit 100" out.db < schema/queries/biggest_arrays.sql
-- Parameters (optional): @limit, rows shown (default 20; -1 for all); @dump,
-- the heap dump (default: every dump).
SELECT n.identifier AS object,
       coalesce(
           cn.data,
           CASE WHEN n.nodetypeid = 4 THEN pa.element_type || '[]' END,
           printf('<class 0x%x>', n.class)) AS class,
       coalesce(oa.length, pa.length) AS length,
       n.size AS bytes,
       n.dump AS dump
FROM node AS n
LEFT JOIN node_object_array AS oa
       ON n.nodetypeid = 3 AND oa.node_identifier = n.identifier AND oa.dump = n.dump
LEFT JOIN node_primitive_array AS pa
       ON n.nodetypeid = 4 AND pa.node_identifier = n.identifier AND pa.dump = n.dump
LEFT JOIN node_class AS c ON c.node_identifier = n.class AND c.dump = n.dump
LEFT JOIN strings AS cn ON cn.stringid = c.java_name
WHERE n.nodetypeid IN (3, 4)
  AND (@dump IS NULL OR n.dump = @dump)
ORDER BY n.size DESC, n.dump, n.identifier
LIMIT coalesce(@limit, 20);
