// Parses each input line (a query, UTF-8 in hex) with Lucene's classic query parser, the
// syntax of Solr's standard parser, and prints the structure of the parsed query on one
// line, texts in hex. Run by test/evaluation/solr-params.test.ts when Lucene is installed.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

public class ParseQueries {
  static String hex(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) out.append(String.format("%02x", b));
    return out.toString();
  }

  static String unhex(String hex) {
    byte[] bytes = new byte[hex.length() / 2];
    for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static String shape(Query query) {
    if (query instanceof BooleanQuery) {
      StringBuilder out = new StringBuilder("(bool");
      for (BooleanClause clause : ((BooleanQuery) query).clauses()) {
        String occur = switch (clause.getOccur()) {
          case MUST -> "+";
          case SHOULD -> "?";
          case MUST_NOT -> "-";
          case FILTER -> "#";
        };
        out.append(' ').append(occur).append(shape(clause.getQuery()));
      }
      return out.append(')').toString();
    }
    if (query instanceof BoostQuery) {
      BoostQuery boost = (BoostQuery) query;
      return "(boost " + boost.getBoost() + " " + shape(boost.getQuery()) + ")";
    }
    if (query instanceof TermQuery) {
      Term term = ((TermQuery) query).getTerm();
      return "(term " + hex(term.field()) + " " + hex(term.text()) + ")";
    }
    if (query instanceof MatchAllDocsQuery) return "(all)";
    return "(other " + query.getClass().getSimpleName() + ")";
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    QueryParser parser = new QueryParser("_text_", new KeywordAnalyzer());
    parser.setAllowLeadingWildcard(false);
    // Each bare term on its own, as a whitespace-splitting field analyzer would see it.
    parser.setSplitOnWhitespace(true);
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      try {
        System.out.println(shape(parser.parse(unhex(line))));
      } catch (Exception e) {
        System.out.println("(error " + hex(String.valueOf(e.getMessage())) + ")");
      }
    }
  }
}
