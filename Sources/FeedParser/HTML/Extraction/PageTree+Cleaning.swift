/// Cleaning the chosen article: Readability's "clean conditionally", which removes the blocks inside the
/// article that look like boilerplate by their counts (links, images, list items against paragraphs).
extension PageTree {
    private static let conditionalTags: Set<String> = [
        "div", "section", "table", "ul", "ol", "dl", "footer", "form", "fieldset",
    ]

    /// Removes the boilerplate-looking blocks below each of `roots` (never a root itself), innermost first,
    /// so that a wrapper is judged by what is left inside it.
    mutating func cleanConditionally(below roots: [Int], weighClasses: Bool) {
        var emptied: Set<Int> = []
        for root in roots {
            for index in keptDescendants(of: root).reversed() where Self.conditionalTags.contains(elements[index].tag) {
                if looksLikeBoilerplate(index, weighClasses: weighClasses) || isOrphanedHeading(index, emptied) {
                    remove(index)
                    emptied.insert(elements[index].parent)
                }
            }
        }
    }

    /// A box whose content went as boilerplate and of which only its heading is left ("Read more").
    private func isOrphanedHeading(_ index: Int, _ emptied: Set<Int>) -> Bool {
        let stats = elements[index].total
        return emptied.contains(index) && stats.headingCharacters >= stats.characters * 9 / 10 && stats.media == 0
    }

    /// The elements below `root` that are still kept, in document order.
    private func keptDescendants(of root: Int) -> [Int] {
        keptElements(from: root + 1, to: elements[root].end)
    }

    private func looksLikeBoilerplate(_ index: Int, weighClasses: Bool) -> Bool {
        let element = elements[index]
        if element.tag == "table", isDataTable(index) { return false }
        let weight = weighClasses ? element.hints.weight : 0
        if Double(weight) + (element.score ?? 0) < 0 { return true }
        let stats = element.total
        // Ten commas make prose, whatever else is around.
        guard stats.commas < 10 else { return false }
        let isList = ["ul", "ol", "dl"].contains(element.tag)
            || (stats.characters > 0 && Double(stats.listCharacters) > 0.9 * Double(stats.characters))
        let headingDensity = stats.characters == 0 ? 0 : Double(stats.headingCharacters) / Double(stats.characters)
        let isInFigure = { hasAncestor("figure", of: index) }
        if stats.media > 1, stats.paragraphs * 2 < stats.media, !isInFigure() { return true }
        if !isList, stats.listItems - 100 > stats.paragraphs { return true }
        if !isList, headingDensity < 0.9, stats.characters < Self.shortestParagraph,
           stats.media == 0 || stats.media > 2, stats.codeBlocks == 0, !isInFigure() {
            return true
        }
        if !isList, weight < 25, stats.linkDensity > 0.2 { return true }
        if weight >= 25, stats.linkDensity > 0.5 { return true }
        // Ours: a list of little but links ("Read more", "See also" boxes) is navigation, not the story.
        if isList, weight < 25, stats.linkDensity > 0.7 { return true }
        return false
    }

    /// A table of data (headers, or enough rows and columns) rather than one that lays out the page.
    private func isDataTable(_ index: Int) -> Bool {
        if Self.attribute("role", of: elements[index].node)?.lowercased() == "presentation" { return false }
        if elements[index].total.tableHeaders > 0 { return true }
        var rows = 0
        var columns = 0
        for child in children(of: index) {
            let rowGroup = ["tbody", "thead", "tfoot"].contains(elements[child].tag) ? children(of: child) : [child]
            for row in rowGroup where elements[row].tag == "tr" {
                rows += 1
                columns = max(columns, children(of: row).count)
            }
        }
        return rows >= 10 || columns > 4 || rows * columns > 10
    }
}
