-- duplicate_strings.sql: which texts are held by more than one
-- java.lang.String object, and how many bytes the copies waste.
--
-- A String's text is the string record its node_instance.text names (decoded
-- from its value array, see schema/README.md).  wasted_bytes is what would be
-- freed if one String object and one value array served every holder: the
-- shallow bytes of all the String objects and of their distinct value arrays,
-- less one String object and one array.  Strings that already share one array
-- (new String(s) does) waste only their String objects.
--
-- Columns: text, chars (its length in code points), instances (String
-- objects), arrays (distinct value arrays among them), wasted_bytes, dump.
-- A text may hold U+0000 (Java allows it; some JDK lookup tables begin with
-- one): the sqlite3 shell prints such a text only up to it, and SQLite's
-- length() stops there too, so chars counts the code points of the whole
-- text another way (instr counts every character before the one it finds;
-- byte FF, which UTF-8 never holds, is put after the text for it to find).
--
-- Run:
--   sqlite3 -header -column out.db < schema/queries/duplicate_strings.sql
--   sqlite3 -header -column -cmd ".parameter set @limit 100" out.db < schema/queries/duplicate_strings.sql
-- Parameters (optional): @limit, rows shown (default 50; -1 for all); @dump,
-- the heap dump (default: every dump).
WITH
  string_object(id, dump, text, size) AS (
    SELECT i.node_identifier, i.dump, s.data, n.size
    FROM node_instance AS i
    JOIN strings AS s ON s.stringid = i.text
    JOIN node AS n ON n.identifier = i.node_identifier AND n.dump = i.dump
    WHERE i.text IS NOT NULL
      AND (@dump IS NULL OR i.dump = @dump)),
  duplicate(dump, text, instances, string_bytes, one_string) AS (
    SELECT dump, text, count(*), sum(size), max(size)
    FROM string_object
    GROUP BY dump, text
    HAVING count(*) > 1),
  -- The field name "value" as string ids (a dump may name it more than once).
  value_name(id) AS (
    SELECT stringid FROM strings WHERE data = 'value'),
  value_array(dump, text, array, size) AS (
    SELECT DISTINCT so.dump, so.text, e.dest, a.size
    FROM duplicate AS d
    JOIN string_object AS so ON so.dump = d.dump AND so.text = d.text
    JOIN edge AS e ON e.source = so.id AND e.dump = so.dump
                  AND e.edgetypeid = 1 AND e.label IN value_name
    JOIN node AS a ON a.identifier = e.dest AND a.dump = e.dump),
  array_total(dump, text, arrays, array_bytes, one_array) AS (
    SELECT dump, text, count(*), sum(size), max(size)
    FROM value_array
    GROUP BY dump, text)
SELECT d.text AS text,
       CASE WHEN instr(d.text, char(0)) = 0 THEN length(d.text)
            ELSE instr(d.text || cast(x'FF' AS TEXT), cast(x'FF' AS TEXT)) - 1
       END AS chars,
       d.instances AS instances,
       coalesce(a.arrays, 0) AS arrays,
       d.string_bytes - d.one_string
         + coalesce(a.array_bytes - a.one_array, 0) AS wasted_bytes,
       d.dump AS dump
FROM duplicate AS d
LEFT JOIN array_total AS a ON a.dump = d.dump AND a.text = d.text
ORDER BY wasted_bytes DESC, d.instances DESC, d.text, d.dump
LIMIT coalesce(@limit, 50);
