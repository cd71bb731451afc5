import org.apache.kafka.common.protocol.Errors;

/**
 * Prints Kafka's error codes as JSON, `[[code, name, message], ...]`, with `Errors.message()` (the
 * text a response carries when Kafka answers an error with its default message), for
 * scripts/generate-error-messages.mjs.
 */
public class ErrorMessages {
    public static void main(String[] args) {
        StringBuilder out = new StringBuilder("[");
        for (Errors e : Errors.values()) {
            if (out.length() > 1) out.append(',');
            out.append('[').append(e.code()).append(',').append(quote(e.name())).append(',').append(quote(e.message())).append(']');
        }
        System.out.println(out.append(']'));
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
