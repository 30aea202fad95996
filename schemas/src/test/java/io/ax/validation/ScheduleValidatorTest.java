package io.ax.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ScheduleValidatorTest {
    /** The rule as it was written before the loop: the reference the loop is held to. */
    private static final Pattern JOB_TYPE = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    @Test
    void shouldTakeAJobTypeExactlyWhenTheRegexDoes() {
        String[] samples = {null, "", "email", "charge-card", "a.b_c:d-e", "x".repeat(128), "x".repeat(129), "with space", "é",
                "emoji-😀", "tab\t", "slash/", "A-Z.0_9:z-", "\u0000", "-", "."};
        for (String jobType : samples) {
            assertThat(ScheduleValidator.isJobType(jobType)).as(String.valueOf(jobType))
                    .isEqualTo(jobType != null && JOB_TYPE.matcher(jobType).matches());
        }
        // random strings over the allowed chars and their neighbours in ASCII, and a few beyond
        String alphabet = "azAZ09._:-/@[`{ ~\u007f\u00e9\u4e2d";
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder jobType = new StringBuilder();
            int length = random.nextInt(0, 140);
            for (int j = 0; j < length; j++) {
                jobType.append(random.nextInt(10) < 8 ? (char) ('a' + random.nextInt(26)) : alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String value = jobType.toString();
            assertThat(ScheduleValidator.isJobType(value)).as(value).isEqualTo(JOB_TYPE.matcher(value).matches());
        }
    }
}
