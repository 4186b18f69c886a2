/* Node, edge and record types of the HPROF mapping (hprof_model.c). */
#ifndef HF_HPROF_MODEL_H
#define HF_HPROF_MODEL_H
#include "heapfmt/heapfmt.h"

enum {
	HPROF_NODE_CLASS = 1,
	HPROF_NODE_INSTANCE = 2,
	HPROF_NODE_OBJECT_ARRAY = 3,
	HPROF_NODE_PRIMITIVE_ARRAY = 4
};
enum {
	HPROF_EDGE_INSTANCE_FIELD = 1,
	HPROF_EDGE_STATIC_FIELD = 2,
	HPROF_EDGE_ARRAY_ELEMENT = 3,
	HPROF_EDGE_SUPERCLASS = 4,
	HPROF_EDGE_CLASS_LOADER = 5,
	HPROF_EDGE_SIGNERS = 6,
	HPROF_EDGE_PROTECTION_DOMAIN = 7,
	HPROF_EDGE_CONSTANT_POOL = 8
};

extern const hf_type hprof_node_class, hprof_node_instance, hprof_node_objarray,
	hprof_node_primarray;
extern const hf_type hprof_edge_field, hprof_edge_static, hprof_edge_element,
	hprof_edge_super, hprof_edge_loader, hprof_edge_signers, hprof_edge_domain,
	hprof_edge_cpool;
extern const hf_type hprof_rec_root, hprof_rec_heap, hprof_rec_load_class,
	hprof_rec_unload_class, hprof_rec_frame, hprof_rec_trace, hprof_rec_trace_frame,
	hprof_rec_thread, hprof_rec_thread_end, hprof_rec_alloc_site, hprof_rec_cpu_sample,
	hprof_rec_class_field;
/* Every type, in declaration order, NULL-terminated. */
extern const hf_type *const hprof_types[];

#endif
