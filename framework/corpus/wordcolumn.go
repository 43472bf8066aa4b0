package corpus

// WordColumn returns the index of the column of a format's layout that
// holds the tokens themselves: what in-vocabulary figures look up, what
// plain text fills, what output shows as the token. It is the first column
// named "form", "word" or "char" that is not the label column, else the
// first column that is not the label column; -1 for crfsuite, whose rows
// are attributes, not words. format is the format's name (Config.Name),
// columns its column names, label the index of its label column.
//
// Training and tagging both ask this one function (a model also records
// the column its run used, which a tagger reads first), so the word of a
// layout such as [pos word chunk] is the same for both.
func WordColumn(format string, columns []string, label int) int {
	if format == NameCRFsuite {
		return -1
	}
	for i, c := range columns {
		if (c == "form" || c == "word" || c == "char") && i != label {
			return i
		}
	}
	for i := range columns {
		if i != label {
			return i
		}
	}
	return 0
}
