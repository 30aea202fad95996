package io.ax.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ScheduleValidatorTest {

    @Test
    void shouldTakeAJobTypeExactlyWhenTheRegexDoes() {
        String[] samples = {null, "", "email", "charge-card", "a.b_c:d-e", "x".repeat(128), "x".repeat(129), "with space", "é",
                "emoji-😀", "tab\t", "slash/", "A-Z.0_9:z-", "\u0000", "-", "."};
        for (String jobType : samples) {
            assertThat(ScheduleValidator.isJobType(jobType)).as(String.valueOf(jobType))
                    .isEqualTo(jobType != null && ScheduleValidator.JOB_TYPE.matcher(jobType).matches());
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
            assertThat(ScheduleValidator.isJobType(value)).as(value).isEqualTo(ScheduleValidator.JOB_TYPE.matcher(value).matches());
        }
    }
}
