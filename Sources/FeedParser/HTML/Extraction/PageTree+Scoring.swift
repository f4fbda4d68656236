/// Finding the article: first what the page says of itself (`<article>`, `<main>`), else the scores of
/// the known readability algorithms (Arc90's, Mozilla's): paragraphs give points to the blocks around them.
extension PageTree {
    /// An element's non-link text below this is no article (a teaser, a caption).
    static let substantialCharacters = 500
    /// A paragraph shorter than this gives no points (a label, a date line).
    static let shortestParagraph = 25

    /// Containers whose own text (outside any block child) counts as a paragraph of theirs.
    private static let containerTags: Set<String> = [
        "div", "section", "article", "main", "body", "td", "th", "blockquote", "center", "dd", "form",
    ]

    func nonLinkCharacters(of index: Int) -> Int {
        Int(elements[index].total.characters - elements[index].total.linkCharacters)
    }

    /// Removes what is named like boilerplate (comments, share buttons, ads, sidebars), as Readability's
    /// "unlikely candidates"; a wrapper with a positive name that holds much of the page's text stays.
    mutating func removeUnlikelyElements() {
        let pageText = Double(max(1, nonLinkCharacters(of: 0)))
        var index = 1  // the body stays
        while index < elements.count {
            let element = elements[index]
            let holdsMostText = Double(nonLinkCharacters(of: index)) >= 0.3 * pageText
            if element.hints.isRemovable(holdsMostText: holdsMostText), element.tag != "pre", element.tag != "code" {
                remove(index)
                index = element.end
            } else {
                index += 1
            }
        }
    }

    /// The page's own article: its one substantial `<article>`, else its `<main>` (or `[role=main]`)
    /// when that holds enough text; nil when the page does not say, or says it ambiguously.
    func semanticRoot() -> Int? {
        let pageText = Double(nonLinkCharacters(of: 0))
        let isSubstantial = { (index: Int) -> Bool in
            let text = self.nonLinkCharacters(of: index)
            // A lone `<article>` around a small part of the page is a widget's, not the page's.
            return text >= Self.substantialCharacters && Double(text) >= 0.2 * pageText
                && self.elements[index].total.linkDensity < 0.5
        }
        var articles: [Int] = []
        var mains: [Int] = []
        var index = 0
        while index < elements.count {
            let element = elements[index]
            if element.isRemoved {
                index = element.end
                continue
            }
            if element.isMainLandmark, element.tag != "article" { mains.append(index) }
            if element.tag == "article" {
                articles.append(index)  // the outermost only: comments may be articles within it
                index = element.end
            } else {
                index += 1
            }
        }
        let substantialArticles = articles.filter(isSubstantial)
        if substantialArticles.count == 1 { return substantialArticles[0] }
        return mains.first(where: isSubstantial)
    }

    // MARK: - Scores

    /// Gives each paragraph's points to its parent and half to its grandparent; text directly inside
    /// a container (a `<div>` with `<br>`s, a layout `<td>`) is a paragraph of that container.
    mutating func scoreParagraphs(weighClasses: Bool) {
        // Crediting moves scores only, never what is removed: the kept elements are listed once.
        for index in keptElements(from: 0, to: elements.count) {
            let element = elements[index]
            if isParagraph(index) {
                credit(characters: Int(element.total.characters), commas: Int(element.total.commas), to: element.parent,
                       weighClasses: weighClasses)
            } else if Self.containerTags.contains(element.tag) {
                credit(characters: Int(element.phrasing.characters), commas: Int(element.phrasing.commas), to: index,
                       weighClasses: weighClasses)
            }
        }
        // Links are not the article: scale each score by the share of text outside links.
        for index in elements.indices {
            if let score = elements[index].score {
                elements[index].score = score * (1 - elements[index].total.linkDensity)
            }
        }
    }

    /// A `<p>`, a `<pre>`, or a container with only inline content (which Readability turns into a `<p>`).
    /// Table cells are always containers: a layout cell is the article's box, not one of its paragraphs.
    func isParagraph(_ index: Int) -> Bool {
        let element = elements[index]
        if element.tag == "p" || element.tag == "pre" { return true }
        return Self.containerTags.contains(element.tag) && element.tag != "td" && element.tag != "th"
            && !element.hasBlockChild && element.parent >= 0
    }

    private mutating func credit(characters: Int, commas: Int, to first: Int, weighClasses: Bool) {
        guard first >= 0, characters >= Self.shortestParagraph else { return }
        // One point, one per comma, one per 100 characters up to three (Readability's).
        let points = 1 + Double(commas) + Double(min(characters / 100, 3))
        var target = first
        for share in [1.0, 0.5] where target >= 0 {
            if elements[target].score == nil {
                elements[target].score = initialScore(target, weighClasses: weighClasses)
            }
            elements[target].score! += points * share
            target = elements[target].parent
        }
    }

    /// What an element starts with: its kind of tag (a `div` is likelier content than a list or a
    /// heading) and, when classes are weighed, its class and id.
    func initialScore(_ index: Int, weighClasses: Bool) -> Double {
        let base: Double = switch elements[index].tag {
        case "div": 5
        case "pre", "td", "blockquote": 3
        case "address", "ol", "ul", "dl", "dd", "dt", "li", "form": -3
        case "h1", "h2", "h3", "h4", "h5", "h6", "th": -5
        default: 0
        }
        return base + Double(weighClasses ? elements[index].hints.weight : 0)
    }

    // MARK: - The best candidate and its siblings

    /// The element that holds the article, or nil when no paragraph scored.
    mutating func bestCandidate(weighClasses: Bool) -> Int? {
        let ranked = elements.indices.filter { elements[$0].score != nil && !elements[$0].isRemoved }
            .sorted { elements[$0].score! > elements[$1].score! }.prefix(5)
        guard var best = ranked.first, let bestScore = elements[best].score, bestScore > 0 else { return nil }
        // Three or more near-equals (posts of a thread, entries of a list) share their common ancestor.
        let nearEquals = ranked.dropFirst().filter { elements[$0].score! >= 0.75 * bestScore }
        if nearEquals.count >= 3 {
            var ancestor = elements[best].parent
            while ancestor > 0 {
                if nearEquals.filter({ contains(ancestor, $0) }).count >= 3 {
                    best = ancestor
                    break
                }
                ancestor = elements[ancestor].parent
            }
        }
        if elements[best].score == nil { elements[best].score = initialScore(best, weighClasses: weighClasses) }
        best = climbWhileParentsScoreHigher(from: best)
        // An only child says no more than its parent.
        while elements[best].parent > 0, children(of: elements[best].parent).count == 1 {
            best = elements[best].parent
        }
        return best
    }

    /// Readability's walk up: an ancestor that scores higher than the way to it holds more of the article.
    private func climbWhileParentsScoreHigher(from start: Int) -> Int {
        var lastScore = elements[start].score ?? 0
        let threshold = lastScore / 3
        var ancestor = elements[start].parent
        while ancestor > 0 {
            if let score = elements[ancestor].score {
                if score < threshold { break }
                if score > lastScore { return ancestor }
                lastScore = score
            }
            ancestor = elements[ancestor].parent
        }
        return start
    }

    /// `best` and those of its siblings that belong with it: ones that scored well, ones named as it is,
    /// and paragraphs of prose (long with few links, or a short sentence without any).
    func siblings(keptWith best: Int) -> [Int] {
        let parent = elements[best].parent
        guard parent >= 0 else { return [best] }
        let bestScore = elements[best].score ?? 0
        let threshold = max(10, bestScore * 0.2)
        let bestClass = Self.attribute("class", of: elements[best].node) ?? ""
        return children(of: parent).filter { sibling in
            if sibling == best { return true }
            let element = elements[sibling]
            var bonus = 0.0
            if !bestClass.isEmpty, Self.attribute("class", of: element.node) == bestClass { bonus = bestScore * 0.2 }
            if let score = element.score, score + bonus >= threshold { return true }
            guard isParagraph(sibling) else { return false }
            let characters = element.total.characters
            let density = element.total.linkDensity
            if characters > 80 { return density < 0.25 }
            return characters > 0 && density == 0 && Self.endsASentence(text(of: sibling))
        }
    }

    private static func endsASentence(_ text: String) -> Bool {
        text.hasSuffix(".") || text.contains(". ")
    }
}
