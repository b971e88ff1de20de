"""The final consonant (받침) of a Hangul word, which picks a particle's form (은/는, 이/가)."""

FIRST_SYLLABLE, LAST_SYLLABLE = "가", "힣"


def final_consonant(word: str) -> int:
    """The index (1-27) of the final consonant of the word's last syllable; 0 where it has none
    or the last character is not a Hangul syllable."""
    last = word[-1]
    if not FIRST_SYLLABLE <= last <= LAST_SYLLABLE:
        return 0
    return (ord(last) - ord(FIRST_SYLLABLE)) % 28


def has_final_consonant(word: str) -> bool:
    return final_consonant(word) != 0
