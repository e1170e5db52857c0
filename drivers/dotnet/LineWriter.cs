// Writes one protocol line. System.Text.Json's writer replaces a lone UTF-16 surrogate with
// U+FFFD, and PROTOCOL.md ("Transport") wants it as a \u escape so the harness compares what the
// application really received. Strings are therefore escaped here (everything else is written by
// System.Text.Json), which no JsonSerializerOptions setting offers.

using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Conformance.Driver;

internal static class LineWriter
{
    public static string Write(JsonNode? node, JsonSerializerOptions options)
    {
        var sb = new StringBuilder();
        Append(sb, node, options);
        return sb.ToString();
    }

    private static void Append(StringBuilder sb, JsonNode? node, JsonSerializerOptions options)
    {
        switch (node)
        {
            case null:
                sb.Append("null");
                break;
            case JsonObject obj:
                sb.Append('{');
                bool firstMember = true;
                foreach ((string key, JsonNode? value) in obj)
                {
                    if (!firstMember)
                    {
                        sb.Append(',');
                    }
                    firstMember = false;
                    AppendString(sb, key);
                    sb.Append(':');
                    Append(sb, value, options);
                }
                sb.Append('}');
                break;
            case JsonArray array:
                sb.Append('[');
                for (int i = 0; i < array.Count; i++)
                {
                    if (i > 0)
                    {
                        sb.Append(',');
                    }
                    Append(sb, array[i], options);
                }
                sb.Append(']');
                break;
            case JsonValue value when value.GetValueKind() == JsonValueKind.String:
                AppendString(sb, value.GetValue<string>());
                break;
            default:
                sb.Append(node.ToJsonString(options));
                break;
        }
    }

    private static void AppendString(StringBuilder sb, string s)
    {
        sb.Append('"');
        for (int i = 0; i < s.Length; i++)
        {
            char c = s[i];
            switch (c)
            {
                case '"':
                    sb.Append("\\\"");
                    break;
                case '\\':
                    sb.Append("\\\\");
                    break;
                case '\n':
                    sb.Append("\\n");
                    break;
                case '\r':
                    sb.Append("\\r");
                    break;
                case '\t':
                    sb.Append("\\t");
                    break;
                default:
                    if (c < 0x20 || c == '\u2028' || c == '\u2029')
                    {
                        AppendEscape(sb, c);
                    }
                    else if (char.IsHighSurrogate(c) && i + 1 < s.Length && char.IsLowSurrogate(s[i + 1]))
                    {
                        sb.Append(c).Append(s[i + 1]); // a valid pair: UTF-8 encodes it
                        i++;
                    }
                    else if (char.IsSurrogate(c))
                    {
                        AppendEscape(sb, c); // a lone surrogate: only an escape keeps it
                    }
                    else
                    {
                        sb.Append(c);
                    }
                    break;
            }
        }
        sb.Append('"');
    }

    private static void AppendEscape(StringBuilder sb, char c) =>
        sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
}
