package io.txlock.testkit;

/**
 * How to build a provider in another JVM.
 *
 * @param factory a class with a public no-argument constructor
 * @param config passed to {@link ProviderFactory#create(String)}
 */
public record ProviderRecipe(Class<? extends ProviderFactory> factory, String config) {
}
