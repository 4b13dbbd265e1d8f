package org.gpusched.cli;

import org.gpusched.streaming.kafka.WireFormat;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code --wire-format}: how the Avro values a command writes to Kafka are framed (readers accept both). */
final class WireFormatOption {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(
            names = "--wire-format",
            paramLabel = "FORMAT",
            defaultValue = "plain",
            description =
                    "Framing of the Avro values written: plain (the record's binary alone, the default) or "
                            + "single-object (Avro single-object encoding: C3 01 + the schema's CRC-64-AVRO fingerprint + the binary, "
                            + "read by Avro's BinaryMessageDecoder in any language; docs/analytics.md). Values read are accepted in either.")
    String wireFormat;

    WireFormat value() {
        try {
            return WireFormat.of(wireFormat);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--wire-format: " + e.getMessage());
        }
    }
}
