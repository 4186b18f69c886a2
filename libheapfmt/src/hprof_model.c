/*
 * The JVM mapping of the extensible heap-dump format: the node subtypes,
 * edge subtypes and extra record types an HPROF dump is written as.  The
 * numeric subtypes are part of the schema contract (schema/heapdb.sql).
 */
#include "hprof_model.h"

#define N(a) (sizeof(a) / sizeof *(a))

static const hf_field class_fields[] = {
	{ "name", HF_FIELD_STRREF, "class name as the dump writes it (java/lang/String, [I, int[])", 0 },
	{ "java_name", HF_FIELD_STRREF, "class name in Java source form (java.lang.String, int[])", 0 },
	{ "super", HF_FIELD_ID, "superclass object id (0: none)", 0 },
	{ "loader", HF_FIELD_ID, "class loader object id (0: bootstrap)", 0 },
	{ "instance_size", HF_FIELD_INT, "instance size as written in the CLASS DUMP (meaning differs per VM)", 0 },
	{ "serial", HF_FIELD_INT, "class serial number from LOAD CLASS (absent if none)", 0 },
	{ "static_count", HF_FIELD_INT, "number of static fields", 0 },
	{ "field_count", HF_FIELD_INT, "number of instance fields declared by this class", 0 },
	{ "values", HF_FIELD_JSON, "with --values: primitive static values by name, constant-pool values as \"#index\"", 0 },
};
static const hf_field instance_fields[] = {
	{ "text", HF_FIELD_STRREF, "java.lang.String only: string record holding the decoded text", 0 },
	{ "values", HF_FIELD_JSON, "with --values: primitive field values by name (the subclass's field wins on a name clash)", 0 },
};
static const hf_field objarray_fields[] = {
	{ "length", HF_FIELD_INT, "number of elements as dumped", 0 },
};
static const hf_field primarray_fields[] = {
	{ "length", HF_FIELD_INT, "number of elements as dumped", 0 },
	{ "element_type", HF_FIELD_TEXT, "boolean, char, float, double, byte, short, int or long", 0 },
	{ "nodata", HF_FIELD_INT, "1 for an Android PRIMITIVE ARRAY NODATA (0xC3): contents unknown", 0 },
	{ "values", HF_FIELD_JSON, "with --values: the elements as a JSON array (chars as UTF-16 code units)", 0 },
};

const hf_type hprof_node_class = { HF_TYPE_NODE, HPROF_NODE_CLASS, "class", "node_class",
	class_fields, N(class_fields), NULL, "a class (CLASS DUMP); its own class is java.lang.Class" };
const hf_type hprof_node_instance = { HF_TYPE_NODE, HPROF_NODE_INSTANCE, "instance", "node_instance",
	instance_fields, N(instance_fields), NULL, "an object (INSTANCE DUMP)" };
const hf_type hprof_node_objarray = { HF_TYPE_NODE, HPROF_NODE_OBJECT_ARRAY, "object_array",
	"node_object_array", objarray_fields, N(objarray_fields), NULL, "an array of references (OBJECT ARRAY DUMP)" };
const hf_type hprof_node_primarray = { HF_TYPE_NODE, HPROF_NODE_PRIMITIVE_ARRAY, "primitive_array",
	"node_primitive_array", primarray_fields, N(primarray_fields), NULL,
	"an array of a primitive type (PRIMITIVE ARRAY DUMP, or Android NODATA)" };

#define EDGE(var, id, name, label, doc) \
	const hf_type var = { HF_TYPE_EDGE, id, name, NULL, NULL, 0, label, doc }
EDGE(hprof_edge_field, HPROF_EDGE_INSTANCE_FIELD, "instance_field", "string",
     "an instance's reference field; label = string id of the field name");
EDGE(hprof_edge_static, HPROF_EDGE_STATIC_FIELD, "static_field", "string",
     "a class's static reference field; label = string id of the field name");
EDGE(hprof_edge_element, HPROF_EDGE_ARRAY_ELEMENT, "array_element", "index",
     "an object array's element; label = the index");
EDGE(hprof_edge_super, HPROF_EDGE_SUPERCLASS, "superclass", "none", "a class to its superclass");
EDGE(hprof_edge_loader, HPROF_EDGE_CLASS_LOADER, "class_loader", "none", "a class to its class loader");
EDGE(hprof_edge_signers, HPROF_EDGE_SIGNERS, "signers", "none", "a class to its signers object");
EDGE(hprof_edge_domain, HPROF_EDGE_PROTECTION_DOMAIN, "protection_domain", "none",
     "a class to its protection domain");
EDGE(hprof_edge_cpool, HPROF_EDGE_CONSTANT_POOL, "constant_pool", "index",
     "a class's constant-pool reference; label = the constant-pool index");

static const hf_field root_fields[] = {
	{ "dump", HF_FIELD_INT, "heap dump index", 0 },
	{ "kind", HF_FIELD_TEXT, "root kind: UNKNOWN, JNI_GLOBAL, JNI_LOCAL, JAVA_FRAME, NATIVE_STACK, STICKY_CLASS, THREAD_BLOCK, MONITOR_USED, THREAD_OBJECT, INTERNED_STRING, FINALIZING, DEBUGGER, REFERENCE_CLEANUP, VM_INTERNAL, JNI_MONITOR, UNREACHABLE", 0 },
	{ "object", HF_FIELD_ID, "the object held (may name an object that was never dumped)", 1 },
	{ "thread_serial", HF_FIELD_INT, "thread serial number, for thread-related roots", 0 },
	{ "frame", HF_FIELD_INT, "frame number in the thread's stack trace (-1: none)", 0 },
	{ "trace_serial", HF_FIELD_INT, "THREAD_OBJECT: the thread's stack-trace serial", 0 },
	{ "jni_ref", HF_FIELD_ID, "JNI_GLOBAL: the JNI global reference id", 0 },
	{ "heap", HF_FIELD_INT, "Android heap id current when the root was written", 0 },
};
const hf_type hprof_rec_root = { HF_TYPE_RECORD, 0, "hprof.gc_root", "hprof_gc_root", root_fields,
	N(root_fields), NULL, "a GC root sub-record" };

static const hf_field heap_fields[] = {
	{ "heap", HF_FIELD_INT, "Android heap id (65 app, 73 image, 90 zygote; 0 default)", 0 },
	{ "name", HF_FIELD_STRREF, "heap name string", 0 },
};
const hf_type hprof_rec_heap = { HF_TYPE_RECORD, 0, "hprof.heap", "hprof_heap", heap_fields,
	N(heap_fields), NULL, "an Android heap (HEAP DUMP INFO 0xFE); nodes carry its id in heap" };

static const hf_field load_class_fields[] = {
	{ "serial", HF_FIELD_INT, "class serial number", 1 },
	{ "class", HF_FIELD_ID, "class object id", 0 },
	{ "trace_serial", HF_FIELD_INT, "stack-trace serial", 0 },
	{ "name", HF_FIELD_STRREF, "class name string", 0 },
	{ "java_name", HF_FIELD_STRREF, "class name in Java source form (same id as name when equal)", 0 },
};
const hf_type hprof_rec_load_class = { HF_TYPE_RECORD, 0, "hprof.load_class", "hprof_load_class",
	load_class_fields, N(load_class_fields), NULL, "LOAD CLASS" };

static const hf_field serial_fields[] = {
	{ "serial", HF_FIELD_INT, "serial number", 0 },
};
const hf_type hprof_rec_unload_class = { HF_TYPE_RECORD, 0, "hprof.unload_class",
	"hprof_unload_class", serial_fields, N(serial_fields), NULL, "UNLOAD CLASS" };
const hf_type hprof_rec_thread_end = { HF_TYPE_RECORD, 0, "hprof.thread_end", "hprof_thread_end",
	serial_fields, N(serial_fields), NULL, "END THREAD" };

static const hf_field frame_fields[] = {
	{ "frame", HF_FIELD_ID, "stack frame id", 1 },
	{ "method", HF_FIELD_STRREF, "method name", 0 },
	{ "signature", HF_FIELD_STRREF, "method signature", 0 },
	{ "source_file", HF_FIELD_STRREF, "source file name", 0 },
	{ "class_serial", HF_FIELD_INT, "class serial number", 0 },
	{ "line", HF_FIELD_INT, "line number; -1 unknown, -2 compiled, -3 native, 0 none (ART)", 0 },
};
const hf_type hprof_rec_frame = { HF_TYPE_RECORD, 0, "hprof.stack_frame", "hprof_stack_frame",
	frame_fields, N(frame_fields), NULL, "FRAME" };

static const hf_field trace_fields[] = {
	{ "serial", HF_FIELD_INT, "stack-trace serial", 1 },
	{ "thread_serial", HF_FIELD_INT, "thread serial number", 0 },
	{ "frames", HF_FIELD_INT, "number of frames", 0 },
};
const hf_type hprof_rec_trace = { HF_TYPE_RECORD, 0, "hprof.stack_trace", "hprof_stack_trace",
	trace_fields, N(trace_fields), NULL, "TRACE" };

static const hf_field trace_frame_fields[] = {
	{ "trace_serial", HF_FIELD_INT, "stack-trace serial", 1 },
	{ "depth", HF_FIELD_INT, "position in the trace, 0 = top (innermost) frame", 0 },
	{ "frame", HF_FIELD_ID, "stack frame id", 0 },
};
const hf_type hprof_rec_trace_frame = { HF_TYPE_RECORD, 0, "hprof.stack_trace_frame",
	"hprof_stack_trace_frame", trace_frame_fields, N(trace_frame_fields), NULL,
	"one frame of a TRACE" };

static const hf_field thread_fields[] = {
	{ "serial", HF_FIELD_INT, "thread serial number", 1 },
	{ "object", HF_FIELD_ID, "thread object id", 0 },
	{ "trace_serial", HF_FIELD_INT, "stack-trace serial", 0 },
	{ "name", HF_FIELD_STRREF, "thread name", 0 },
	{ "group", HF_FIELD_STRREF, "thread group name", 0 },
	{ "parent_group", HF_FIELD_STRREF, "parent thread group name", 0 },
};
const hf_type hprof_rec_thread = { HF_TYPE_RECORD, 0, "hprof.thread", "hprof_thread",
	thread_fields, N(thread_fields), NULL, "START THREAD" };

static const hf_field alloc_site_fields[] = {
	{ "flags", HF_FIELD_INT, "record flags: 1 incremental, 2 sorted by allocation, 4 GC forced", 0 },
	{ "array_type", HF_FIELD_INT, "0 plain object, else the basic type of the array elements", 0 },
	{ "class_serial", HF_FIELD_INT, "class serial number", 0 },
	{ "trace_serial", HF_FIELD_INT, "stack-trace serial", 0 },
	{ "bytes_alive", HF_FIELD_INT, "", 0 },
	{ "instances_alive", HF_FIELD_INT, "", 0 },
	{ "bytes_allocated", HF_FIELD_INT, "", 0 },
	{ "instances_allocated", HF_FIELD_INT, "", 0 },
};
const hf_type hprof_rec_alloc_site = { HF_TYPE_RECORD, 0, "hprof.alloc_site", "hprof_alloc_site",
	alloc_site_fields, N(alloc_site_fields), NULL, "one site of an ALLOC SITES record" };

static const hf_field cpu_fields[] = {
	{ "trace_serial", HF_FIELD_INT, "stack-trace serial", 0 },
	{ "count", HF_FIELD_INT, "number of samples", 0 },
};
const hf_type hprof_rec_cpu_sample = { HF_TYPE_RECORD, 0, "hprof.cpu_sample", "hprof_cpu_sample",
	cpu_fields, N(cpu_fields), NULL, "one trace of a CPU SAMPLES record" };

static const hf_field class_field_fields[] = {
	{ "class", HF_FIELD_ID, "class object id", 1 },
	{ "position", HF_FIELD_INT, "order in the CLASS DUMP list (statics and instance fields apart)", 0 },
	{ "static", HF_FIELD_INT, "1 static field, 0 instance field", 0 },
	{ "name", HF_FIELD_STRREF, "field name", 0 },
	{ "type", HF_FIELD_TEXT, "object, boolean, char, float, double, byte, short, int, long", 0 },
};
const hf_type hprof_rec_class_field = { HF_TYPE_RECORD, 0, "hprof.class_field", "hprof_class_field",
	class_field_fields, N(class_field_fields), NULL,
	"a field declared by a class (once per class id, again if another class reuses the id)" };

const hf_type *const hprof_types[] = {
	&hprof_node_class, &hprof_node_instance, &hprof_node_objarray, &hprof_node_primarray,
	&hprof_edge_field, &hprof_edge_static, &hprof_edge_element, &hprof_edge_super,
	&hprof_edge_loader, &hprof_edge_signers, &hprof_edge_domain, &hprof_edge_cpool,
	&hprof_rec_root, &hprof_rec_heap, &hprof_rec_load_class, &hprof_rec_unload_class,
	&hprof_rec_frame, &hprof_rec_trace, &hprof_rec_trace_frame, &hprof_rec_thread,
	&hprof_rec_thread_end, &hprof_rec_alloc_site, &hprof_rec_cpu_sample, &hprof_rec_class_field,
	NULL
};
