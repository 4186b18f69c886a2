// DdmlibAllocDump: runs ddmlib's own AllocationsParser (Debian package
// libandroid-ddms-java) on an allocation report and prints one JSON line per
// entry, for tests/test_ddm.c to compare with alloc2ndjson entry by entry:
//   {"n":ALLOC_NUMBER,"class":..,"size":..,"thread":..,"frames":[[class,method,file,line],...]}
//   javac -cp /usr/share/java/com.android.tools.ddms.ddmlib.jar -d OUT DdmlibAllocDump.java
//   java -cp OUT:/usr/share/java/com.android.tools.ddms.ddmlib.jar DdmlibAllocDump FILE
import com.android.ddmlib.AllocationInfo;
import com.android.ddmlib.AllocationsParser;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

public final class DdmlibAllocDump {
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        byte[] bytes = Files.readAllBytes(Paths.get(args[0]));
        AllocationInfo[] infos = AllocationsParser.parse(ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN));
        StringBuilder sb = new StringBuilder();
        for (AllocationInfo a : infos) {
            sb.setLength(0);
            sb.append("{\"n\":").append(a.getAllocNumber())
              .append(",\"class\":").append(json(a.getAllocatedClass()))
              .append(",\"size\":").append(a.getSize())
              .append(",\"thread\":").append(a.getThreadId())
              .append(",\"frames\":[");
            StackTraceElement[] st = a.getStackTrace();
            for (int i = 0; i < st.length; i++) {
                if (i > 0) sb.append(',');
                sb.append('[').append(json(st[i].getClassName())).append(',')
                  .append(json(st[i].getMethodName())).append(',')
                  .append(json(st[i].getFileName())).append(',')
                  .append(st[i].getLineNumber()).append(']');
            }
            sb.append("]}");
            out.println(sb);
        }
        out.flush();
    }

    private static String json(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20 || Character.isSurrogate(c) && !validPair(s, i)) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    private static boolean validPair(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }
}
