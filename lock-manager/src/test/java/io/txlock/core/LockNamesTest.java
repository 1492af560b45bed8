package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Messages about bad names must themselves be valid text. */
class LockNamesTest {

    @Test
    void anOverLongNameIsShownByItsFirstFortyCodePointsWithoutSplittingAPair() {
        String name = "x" + "😀".repeat(300);
        assertThatThrownBy(() -> LockNames.validate(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 255 characters, was 301")
                .hasMessageContaining("('x" + "😀".repeat(39) + "…')")
                .satisfies(e -> assertThat(e.getMessage().codePoints().filter(cp -> cp >= 0xD800 && cp <= 0xDFFF))
                        .as("lone surrogates in the message").isEmpty());
    }
}
