import ChildProcess
import Foundation

/// What a reader sees of a page: the DOM headless Chromium built, read into cards, tables, the chart's
/// bars and marks. Shared by the HTML report's browser tests and the CLI tests of `report --html`.
extension HeadlessChromium {
    /// What a reader sees, read off the DOM Chromium built.
    public struct Page: Decodable, Sendable {
        /// Every element's tag name, lowercased.
        public var tags: [String]
        /// The summary cards: label → value.
        public var cards: [String: String]
        /// Every table by its heading: rows of cell texts, header row excluded.
        public var tables: [String: [[String]]]
        /// The chart's bars: the tooltip text of every `rect` that has one.
        public var bars: [String]
        /// Attributes named on* anywhere.
        public var handlers: [String]
        /// All visible text.
        public var text: String
        /// The chart's marks under the run ids (`dry`, `failed`, ...): elements of class `mark-label`.
        public var markLabels: [String]
        /// The points of the chart's trend line (class `trend`), left to right.
        public var trendPoints: Int
        /// The notes under the tables, by the table's heading.
        public var notes: [String: String]
    }

    /// Reads the DOM that `--dump-dom` prints, with Python's HTML parser building a small tree.
    static let reader = """
        import json, sys
        from html.parser import HTMLParser
        VOID = {"meta", "link", "br", "hr", "img", "input", "source", "col", "area", "base", "wbr", "embed"}
        class Node:
            def __init__(self, tag, attrs, parent):
                self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []
            def text(self):
                return "".join(c if isinstance(c, str) else c.text() for c in self.children)
            def all(self, tag=None):
                for c in self.children:
                    if isinstance(c, Node):
                        if tag is None or c.tag == tag: yield c
                        yield from c.all(tag)
            def classes(self): return (self.attrs.get("class") or "").split()
        class Builder(HTMLParser):
            def __init__(self):
                super().__init__(convert_charrefs=True)
                self.root = Node("#document", [], None); self.at = self.root
            def handle_starttag(self, tag, attrs):
                node = Node(tag, attrs, self.at); self.at.children.append(node)
                if tag not in VOID: self.at = node
            def handle_startendtag(self, tag, attrs):
                self.at.children.append(Node(tag, attrs, self.at))
            def handle_endtag(self, tag):
                n = self.at
                while n is not None and n.tag != tag: n = n.parent
                if n is not None and n.parent is not None: self.at = n.parent
            def handle_data(self, data): self.at.children.append(data)
        b = Builder(); b.feed(sys.stdin.read())
        nodes = list(b.root.all())
        cards = {}
        for tile in (n for n in nodes if "tile" in n.classes()):
            parts = {c.classes()[0]: c.text() for c in tile.all("div") if c.classes()}
            cards[parts.get("label", "")] = parts.get("value", "")
        tables = {}
        for table in b.root.all("table"):
            heading = next((h.text() for h in table.parent.all("h2")), "")
            rows = [[td.text() for td in tr.all("td")] for tr in table.all("tr")]
            tables[heading] = [r for r in rows if r]
        bars = [t.text() for r in b.root.all("rect") for t in r.all("title")]
        handlers = [k for n in nodes for k in n.attrs if k.startswith("on")]
        body = next(b.root.all("body"))
        labels = [n.text() for n in nodes if "mark-label" in n.classes()]
        trend = [n for n in nodes if "trend" in n.classes()]
        points = len(trend[0].attrs.get("points", "").split()) if trend else 0
        notes = {}
        for table in b.root.all("table"):
            heading = next((h.text() for h in table.parent.all("h2")), "")
            notes[heading] = " ".join(p.text() for p in table.parent.all("p") if "note" in p.classes())
        print(json.dumps({"tags": [n.tag for n in nodes], "cards": cards, "tables": tables, "bars": bars,
                          "handlers": handlers, "text": body.text(), "markLabels": labels, "trendPoints": points,
                          "notes": notes}))
        """

    /// Opens `page` in Chromium and reads the DOM it built.
    /// - Parameter profile: a directory of the caller's (`run`).
    public static func read(page: String, profile: String) throws -> Page {
        let dom = try run(["--dump-dom"], page: page, profile: profile)
        guard dom.status == 0 else { throw PageError(message: "chromium failed: \(dom.stderrText)") }
        let parsed = try ChildProcess.run("/usr/bin/env", ["python3", "-c", reader], stdin: dom.stdout, timeout: 60)
        guard parsed.status == 0 else { throw PageError(message: "reading the DOM failed: \(parsed.stderrText)") }
        return try JSONDecoder().decode(Page.self, from: parsed.stdout)
    }

    public struct PageError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
