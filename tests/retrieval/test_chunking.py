from mithub.retrieval.chunking import (
    doc_id_of,
    is_chunk_id,
    markdown_title,
    split_markdown_sections,
    split_text,
    strip_front_matter,
    window_chunks,
    window_starts,
)


def test_chunk_ids_ending_in_cn_are_chunks():
    assert is_chunk_id("wasabi#c0") and is_chunk_id("a/b.md#c12")
    assert not is_chunk_id("wasabi") and not is_chunk_id("c#1") and not is_chunk_id("x#c")
    assert doc_id_of("wasabi#c3") == "wasabi" and doc_id_of("plain") == "plain"


def test_windows_of_five_sentences_every_two_cover_the_document():
    assert window_starts(12, 5, 2) == [0, 2, 4, 6, 8]
    assert window_starts(3, 5, 2) == [0]
    text = " ".join(f"Sentence number {i} ends here." for i in range(9))
    chunks = window_chunks(text, 5, 2)
    assert len(chunks) == 3
    assert chunks[0].startswith("Sentence number 0") and "number 4" in chunks[0] and "number 5" not in chunks[0]
    assert chunks[1].startswith("Sentence number 2")
    assert chunks[-1].endswith("number 8 ends here.")


def test_korean_text_is_split_into_sentences_before_windowing():
    text = "와사비는 물가에서 자란다. 수온은 15도가 좋다. 잎이 누렇게 변한다. 고온이 원인이다. 차광을 한다. 배수를 관리한다. 수확은 2년 뒤에 한다."
    chunks = window_chunks(text, 5, 2)
    assert len(chunks) == 2
    assert chunks[0].startswith("와사비는") and "배수" not in chunks[0]
    assert chunks[1].endswith("수확은 2년 뒤에 한다.")


def test_front_matter_removed_and_first_title_kept():
    text = "---\ntitle: x\ntags: [a]\n---\n# 파드\nbody"
    body = strip_front_matter(text)
    assert body.startswith("# 파드")
    assert markdown_title(body) == "파드"
    assert strip_front_matter("no front matter\n---\n") == "no front matter\n---\n"


def test_sections_follow_headers_and_ignore_hashes_in_code():
    text = "# A\nintro\n## B\n```\n# comment\n```\n### C\ndeep\n## D\nlast"
    sections = split_markdown_sections(text)
    assert [s.headers for s in sections] == [["A"], ["A", "B"], ["A", "B", "C"], ["A", "D"]]
    assert "# comment" in sections[1].text


def test_size_split_respects_limit_and_overlaps():
    paragraph = "This sentence is about pods. " * 10
    text = "\n\n".join(paragraph.strip() for _ in range(8))
    pieces = split_text(text, 1000, 200)
    assert len(pieces) > 1
    assert all(len(p) <= 1000 for p in pieces)
    # consecutive pieces share text (overlap) at a paragraph boundary
    assert pieces[1].startswith(pieces[0].split("\n\n")[-1][:50])


def test_oversized_paragraph_falls_back_to_sentences_then_words():
    text = "word " * 600
    pieces = split_text(text.strip(), 300, 50)
    assert all(len(p) <= 300 for p in pieces)
    assert len(pieces) >= 10
