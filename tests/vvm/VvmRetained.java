// VvmRetained: the retained sizes VisualVM's heap library computes for a dump,
// as the reference test_vvm.py compares heapfmt's analysis with.
//
//   javac -cp $VVM_JAR -d OUT VvmRetained.java
//   java -cp $VVM_JAR:OUT VvmRetained DUMP.hprof OUT.tsv
//
// Writes one line per object (instances, arrays and class objects), tab
// separated: id, shallow size, retained size, and the id of the object
// VisualVM names as its nearest GC-root pointer (0 for a root or none).  A
// first line "# total" gives the counts.  The library writes its index
// beside the dump (DUMP.hprof.hwcache): give it a copy or a symbolic link in
// a scratch directory.
import java.io.*;
import java.util.*;
import org.graalvm.visualvm.lib.jfluid.heap.*;

public class VvmRetained {
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: VvmRetained DUMP.hprof OUT.tsv");
            System.exit(2);
        }
        Heap heap = HeapFactory.createHeap(new File(args[0]));
        long t0 = System.nanoTime();
        // Forces the dominator tree and every retained size.
        heap.getBiggestObjectsByRetainedSize(1);
        long t1 = System.nanoTime();
        long n = 0;
        try (PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(args[1])))) {
            StringBuilder sb = new StringBuilder();
            for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext();) {
                Instance i = it.next();
                Instance near = i.isGCRoot() ? null : i.getNearestGCRootPointer();
                sb.setLength(0);
                sb.append(i.getInstanceId()).append('\t').append(i.getSize()).append('\t')
                  .append(i.getRetainedSize()).append('\t').append(near == null ? 0 : near.getInstanceId());
                out.println(sb);
                n++;
            }
            for (JavaClass c : heap.getAllClasses()) {
                Instance i = heap.getInstanceByID(c.getJavaClassId());
                if (i == null)
                    continue;
                out.println(c.getJavaClassId() + "\t" + i.getSize() + "\t" + i.getRetainedSize() + "\t0\tclass");
                n++;
            }
        }
        System.out.printf("objects=%d retained_seconds=%.2f%n", n, (t1 - t0) / 1e9);
    }
}
