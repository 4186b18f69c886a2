-- referrers.sql: who references object @id?  Every edge into it, with the
-- referring object, what it is, the kind of reference and its label (the field
-- name, the array index or the constant-pool index).
--
-- Columns: dump, referrer (object id), referrer_kind (class, instance,
-- object_array, ...), referrer_class (the referrer's class in Java source
-- form; for a class object, which refers through its static fields, the
-- class it describes), edge_type (instance_field, static_field,
-- array_element, superclass, class_loader, signers, protection_domain,
-- constant_pool), label (field name, "[index]", "#index" in the constant
-- pool, or NULL for edge types without a label).
--
-- Run:
--   sqlite3 -header -column -cmd ".parameter set @id 4028629016" out.db < schema/queries/referrers.sql
-- Parameters: @id, the object id (decimal, or hex as 0x...; ids at or above
-- 2^63 are stored as negative numbers, see schema/README.md); @dump
-- (optional), the heap dump (default: every dump).
SELECT e.dump AS dump,
       e.source AS referrer,
       coalesce(nt.name, '<not dumped>') AS referrer_kind,
       coalesce(
           CASE WHEN src.nodetypeid = 1 THEN own.data END,
           cls.data,
           CASE WHEN src.nodetypeid = 1 THEN 'java.lang.Class' END,
           CASE WHEN src.identifier IS NOT NULL THEN printf('<class 0x%x>', src.class) END) AS referrer_class,
       et.name AS edge_type,
       CASE et.label
           WHEN 'string' THEN coalesce(lbl.data, printf('<string %d>', e.label))
           WHEN 'index' THEN
               CASE et.name WHEN 'constant_pool' THEN '#' || e.label ELSE '[' || e.label || ']' END
       END AS label
FROM edge AS e
JOIN edge_types AS et ON et.edgetypeid = e.edgetypeid
LEFT JOIN node AS src ON src.identifier = e.source AND src.dump = e.dump
LEFT JOIN node_types AS nt ON nt.nodetypeid = src.nodetypeid
LEFT JOIN node_class AS sc ON sc.node_identifier = src.class AND sc.dump = src.dump
LEFT JOIN strings AS cls ON cls.stringid = sc.java_name
LEFT JOIN node_class AS so ON src.nodetypeid = 1 AND so.node_identifier = src.identifier AND so.dump = src.dump
LEFT JOIN strings AS own ON own.stringid = so.java_name
LEFT JOIN strings AS lbl ON et.label = 'string' AND lbl.stringid = e.label
WHERE e.dest = @id
  AND (@dump IS NULL OR e.dump = @dump)
ORDER BY e.dump, e.edgetypeid, e.source, e.label;
